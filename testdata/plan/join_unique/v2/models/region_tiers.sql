-- The same SQL in v1 and v2; only its input's upsert key changes upstream.
SELECT o.region, c.tier, COUNT(*) AS orders
FROM source('orders') o
JOIN ref('customer_points') c ON o.customer_id = c.customer_id
GROUP BY o.region, c.tier
