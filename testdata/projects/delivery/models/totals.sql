SELECT customer_id, SUM(amount) AS total, COUNT(*) AS n
FROM source('orders')
GROUP BY customer_id
