SELECT customer_id, status, COUNT(*) AS n FROM source('orders') GROUP BY customer_id
