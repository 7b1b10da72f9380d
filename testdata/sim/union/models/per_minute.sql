-- Closes a minute when the slower region's watermark passes its end.
SELECT window_start, window_end, COUNT(*) AS n, SUM(amount) AS total
FROM ref('all_orders')
GROUP BY window_start, window_end
