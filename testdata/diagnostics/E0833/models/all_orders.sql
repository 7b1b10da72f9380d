SELECT order_id FROM source('eu_orders')
UNION ALL
SELECT order_id FROM source('us_orders')
