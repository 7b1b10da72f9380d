SELECT user_id, kind, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts) AS rn FROM source('events')) WHERE rn = 1
