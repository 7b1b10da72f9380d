SELECT user_id, SUM(amount) AS total FROM source('events') GROUP BY user_id
