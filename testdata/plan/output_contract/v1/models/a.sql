SELECT order_id, customer_id, qty FROM source('orders')
