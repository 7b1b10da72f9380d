SELECT * FROM source('orders') GROUP BY customer_id
