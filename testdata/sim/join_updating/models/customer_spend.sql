-- Two updating inputs joined on both their keys: one row per customer on
-- each side.
SELECT c.customer_id, MAX(c.points) AS points, MAX(s.spent) AS spent
FROM ref('customer_points') c
JOIN (SELECT customer_id, SUM(amount) AS spent FROM source('orders') GROUP BY customer_id) s
  ON c.customer_id = s.customer_id
GROUP BY c.customer_id
