SELECT order_id, customer_id FROM source('orders')
