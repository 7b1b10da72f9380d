SELECT customer_id, MAX(tier) AS tier, SUM(points) AS points
FROM source('credits')
GROUP BY customer_id
