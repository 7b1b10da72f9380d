SELECT window_start, window_end, SUM(amount) AS total
FROM TABLE(hop(table source('clicks'), descriptor(ts), interval '5' minute, interval '10' minute))
GROUP BY window_start, window_end
