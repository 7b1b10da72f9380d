SELECT order_id, amount FROM source('eu_orders')
UNION ALL
SELECT order_id, amount FROM source('us_orders')
