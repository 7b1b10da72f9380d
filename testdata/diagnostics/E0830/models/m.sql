SELECT order_id, amount FROM source('orders')
UNION ALL
SELECT order_id, customer_id FROM source('orders')
