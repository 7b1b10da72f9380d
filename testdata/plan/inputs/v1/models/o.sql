SELECT customer_id, COUNT(*) AS n FROM source('orders') WHERE qty > 0 GROUP BY customer_id HAVING COUNT(*) > 1
