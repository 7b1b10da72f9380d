SELECT order_id FROM source('order')
