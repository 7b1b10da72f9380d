SELECT url, user_id, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY url ORDER BY ts) AS rn FROM ref('latest')) WHERE rn = 1
