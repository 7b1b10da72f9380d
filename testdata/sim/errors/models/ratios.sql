SELECT order_id, qty / 0 AS a FROM source('orders')
