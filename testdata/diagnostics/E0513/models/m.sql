SELECT order_id, UPPER(amount) AS u FROM source('orders')
