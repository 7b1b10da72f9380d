-- An aggregate under a CAST is named as the aggregate: `sum(qty)`.
SELECT customer_id, CAST(SUM(qty) AS BIGINT), CAST(CAST(MAX(amount) AS DOUBLE) AS DECIMAL(12,2)), CAST(COUNT(*) AS DOUBLE) + 1
FROM source('orders')
GROUP BY customer_id
