SELECT kind, user_id, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY amount DESC) AS rn FROM source('events')) WHERE rn = 1
