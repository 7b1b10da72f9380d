SELECT window_start, window_end, COUNT(*) AS clicks
FROM source('clicks')
GROUP BY window_end, window_start
