SELECT url, user_id, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY url ORDER BY amount DESC) AS rn FROM source('clicks')) WHERE rn = 1
