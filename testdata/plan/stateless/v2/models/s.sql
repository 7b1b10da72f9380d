SELECT order_id, amount, status FROM source('orders')
