SELECT user_id, window_start, window_end, MAX(amount) AS top
FROM ref('clicks_renamed')
GROUP BY user_id, window_start, window_end
