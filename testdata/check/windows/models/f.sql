SELECT window_start, window_end, COUNT(*) AS n FROM source('archive') GROUP BY window_start, window_end
