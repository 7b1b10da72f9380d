-- Each customer's points and tier, replaced as credits arrive; a customer
-- whose points fall to 0 or below is deleted (HAVING turns false).
SELECT customer_id, MAX(tier) AS tier, SUM(points) AS points
FROM source('credits')
GROUP BY customer_id
HAVING SUM(points) > 0
