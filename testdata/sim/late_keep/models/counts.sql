SELECT user_id, COUNT(*) AS n, MIN(ts) AS first FROM source('clicks') GROUP BY user_id
