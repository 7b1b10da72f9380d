SELECT COUNT(*) AS n
FROM source('paid_orders')
