SELECT customer_id, amount FROM source('orders') WHERE amount > 100
