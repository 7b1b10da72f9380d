SELECT customer_id, COUNT(*) AS n FROM source('orders') GROUP BY customer_id HAVING COUNT(*) > 1
