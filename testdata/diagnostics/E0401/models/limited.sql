SELECT order_id, amount FROM source('orders') LIMIT 10
