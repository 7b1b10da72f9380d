SELECT user_id, COUNT(*) AS n FROM source('plain') GROUP BY user_id
