SELECT user_id, MAX(kind) AS kind, SUM(amount) AS amount FROM source('events') GROUP BY user_id
