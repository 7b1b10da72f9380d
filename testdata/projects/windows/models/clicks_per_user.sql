SELECT user_id, window_start, window_end, COUNT(*) AS clicks, SUM(amount) AS spend
FROM source('clicks')
GROUP BY user_id, window_start, window_end
HAVING COUNT(*) > 1
