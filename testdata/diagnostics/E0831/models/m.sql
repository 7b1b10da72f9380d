SELECT order_id, amount FROM source('orders')
UNION ALL
SELECT order_id, CAST(amount AS DOUBLE) AS amount FROM source('orders')
