SELECT order_id, region, amount FROM source('orders')
