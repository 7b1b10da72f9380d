SELECT user_id, link, ts FROM (SELECT user_id, url AS link, ts, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts) AS rn FROM source('clicks')) WHERE rn = 1
