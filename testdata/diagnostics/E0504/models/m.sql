SELECT order_id FROM source('orders') WHERE order_id
