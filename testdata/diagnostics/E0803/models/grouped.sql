SELECT user_id, n FROM (SELECT user_id, COUNT(*) AS n, ROW_NUMBER() OVER (ORDER BY user_id) AS rn FROM source('clicks') GROUP BY user_id) WHERE rn = 1
