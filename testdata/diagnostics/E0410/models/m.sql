SELECT customer_id, SUM() AS total FROM source('orders') GROUP BY customer_id
