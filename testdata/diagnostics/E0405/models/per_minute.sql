SELECT window_start, window_end, COUNT(*) AS n FROM ref('totals') GROUP BY window_start, window_end
