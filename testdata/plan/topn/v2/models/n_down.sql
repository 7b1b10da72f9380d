SELECT user_id, rn, url, amount FROM (SELECT user_id, url, amount, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY amount DESC) AS rn FROM source('clicks')) WHERE rn <= 3
