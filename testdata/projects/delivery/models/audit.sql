SELECT order_id, status
FROM source('orders')
