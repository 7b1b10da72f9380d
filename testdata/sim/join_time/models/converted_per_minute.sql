-- Converted amounts per minute the orders were placed in.
SELECT window_start, window_end, SUM(converted) AS total, COUNT(*) AS orders
FROM ref('converted')
GROUP BY window_start, window_end
