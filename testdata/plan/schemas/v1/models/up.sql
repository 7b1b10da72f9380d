SELECT customer_id, amount, qty FROM source('orders')
