SELECT order_id FROM source('orders') WHERE NOT order_id
