WITH a AS (SELECT order_id FROM source('orders')), a AS (SELECT amount FROM source('orders')) SELECT order_id FROM a
