SELECT order_id, INTERVAL '1' HOUR AS one_hour FROM source('orders')
