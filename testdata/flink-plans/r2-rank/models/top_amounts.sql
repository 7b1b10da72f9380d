SELECT user_id, rn, kind, amount FROM (SELECT user_id, kind, amount, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY amount DESC) AS rn FROM source('events')) WHERE rn <= 3
