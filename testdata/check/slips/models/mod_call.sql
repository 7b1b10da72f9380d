SELECT order_id, MOD(qty, 2) AS parity FROM source('orders')
