SELECT order_id AS id, amount FROM source('orders')
