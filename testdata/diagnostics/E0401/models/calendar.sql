SELECT order_id, ts + INTERVAL '1' MONTH AS next_month FROM source('orders')
