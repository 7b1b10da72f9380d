SELECT customer_id, SUM(amount) FROM source('orders') GROUP BY customer_id
