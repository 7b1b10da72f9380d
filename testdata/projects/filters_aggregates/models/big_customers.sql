SELECT customer_id, status,
       SUM(amount) AS total, COUNT(1) AS n, MIN(price) AS lo, MAX(qty) AS hi,
       SUM(qty) AS units, SUM(amount) * 2 AS doubled
FROM source('orders')
WHERE amount > 0 AND status <> 'cancelled'
GROUP BY customer_id, status
HAVING SUM(amount) > 100 AND COUNT(*) >= 2
