WITH positive AS (
  SELECT customer_id, qty, amount FROM source('orders') WHERE qty > 0
)
SELECT customer_id, SUM(amount) AS total
FROM positive
WHERE qty < 100
GROUP BY customer_id
HAVING COUNT(*) > 1
