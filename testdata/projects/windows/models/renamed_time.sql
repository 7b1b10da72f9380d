SELECT user_id, window_start, window_end, MAX(amount) AS top
FROM (SELECT user_id, amount, ts AS t FROM source('clicks')) AS c
GROUP BY user_id, window_start, window_end
