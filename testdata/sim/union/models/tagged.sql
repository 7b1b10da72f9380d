-- One source read twice: each event reaches both inputs of the union.
SELECT order_id, 'all' AS tag FROM source('eu_orders')
UNION ALL
SELECT order_id, 'big' AS tag FROM source('eu_orders') WHERE amount > 5
