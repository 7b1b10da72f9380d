-- Grouped by tier too: the upsert key is now (customer_id, tier).
SELECT customer_id, tier, SUM(points) AS points
FROM source('credits')
GROUP BY customer_id, tier
