SELECT id, amount FROM source('orders')
