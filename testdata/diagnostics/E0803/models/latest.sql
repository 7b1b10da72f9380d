SELECT user_id, url, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn FROM source('clicks')) WHERE rn = 1
