SELECT user_id, COUNT(*) AS clicks, MAX(ts) AS last_seen FROM source('clicks') GROUP BY user_id
