SELECT order_id, customer_id, qty, amount FROM source('orders')
