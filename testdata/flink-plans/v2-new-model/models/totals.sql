SELECT user_id, SUM(amount) AS total, COUNT(*) AS n
FROM source('events')
GROUP BY user_id
