WITH a AS (SELECT order_id, qty FROM source('orders')),
     b AS (SELECT order_id FROM a)
SELECT order_id FROM b
