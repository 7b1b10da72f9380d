SELECT order_id, amount + INTERVAL '1' HOUR AS later FROM source('orders')
