SELECT user_id, url FROM (SELECT user_id, url, ts, RANK() OVER (PARTITION BY user_id ORDER BY ts) AS r FROM source('clicks')) WHERE r = 1
