SELECT order_id FROM source('orders') WHERE qty > 2
