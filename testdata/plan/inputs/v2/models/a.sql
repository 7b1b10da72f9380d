SELECT customer_id, qty FROM source('orders') WHERE amount > 5
