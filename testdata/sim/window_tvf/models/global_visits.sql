SELECT window_start, window_end, COUNT(*) AS clicks, AVG(amount) AS mean
FROM TABLE(SESSION(TABLE source('clicks'), DESCRIPTOR(ts), INTERVAL '5' MINUTE))
GROUP BY window_start, window_end
