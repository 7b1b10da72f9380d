-- ts orders the rows but is not selected beside ROW_NUMBER().
SELECT user_id, url
FROM (SELECT user_id, url, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn FROM source('clicks'))
WHERE rn = 1
