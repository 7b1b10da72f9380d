SELECT customer_id, n FROM ref('totals')
UNION ALL
SELECT customer_id, order_id AS n FROM source('orders')
