SELECT user_id, url, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts) AS rn FROM source('clicks')
