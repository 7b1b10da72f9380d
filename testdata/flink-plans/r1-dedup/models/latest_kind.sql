SELECT user_id, kind, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn FROM source('events')) WHERE rn = 1
