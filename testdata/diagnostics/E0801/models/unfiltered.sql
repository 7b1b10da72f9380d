WITH ranked AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts) AS rn FROM source('clicks'))
SELECT user_id, url, rn FROM ranked
