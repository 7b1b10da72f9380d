SELECT customer_id, status, SUM(qty) AS units FROM source('orders') GROUP BY customer_id, status
