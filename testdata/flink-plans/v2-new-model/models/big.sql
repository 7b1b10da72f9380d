SELECT user_id, amount
FROM source('events')
WHERE amount > 50
