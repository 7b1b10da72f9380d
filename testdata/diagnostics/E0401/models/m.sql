SELECT order_id, COALESCE(amount, 0) AS amount FROM source('orders')
