SELECT window_start, window_end, COUNT(*) AS clicks, AVG(amount) AS mean
FROM source('clicks')
GROUP BY window_start, window_end
