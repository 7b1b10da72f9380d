SELECT customer_id, amount FROM source('orders')
