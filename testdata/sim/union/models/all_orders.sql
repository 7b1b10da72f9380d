-- Both regions' orders, one stream; the Source nodes are numbered as
-- they appear: eu_orders is source::0, us_orders source::1.
SELECT order_id, customer_id, amount, 'eu' AS region, ts
FROM source('eu_orders')
UNION ALL
SELECT order_id, customer_id, amount, 'us' AS region, ts
FROM source('us_orders')
WHERE state <> 'test'
