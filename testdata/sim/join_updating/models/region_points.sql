-- An append input joined with an updating one: when a customer's points
-- change, each of its orders leaves its region's total and comes back
-- with the new points.
SELECT o.region, COUNT(*) AS orders, SUM(c.points) AS points
FROM source('orders') o
JOIN ref('customer_points') c ON o.customer_id = c.customer_id
GROUP BY o.region
