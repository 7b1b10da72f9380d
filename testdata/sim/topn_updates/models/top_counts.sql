-- The two customers with the most orders.
SELECT rn, customer_id, orders
FROM (
  SELECT customer_id, orders,
         ROW_NUMBER() OVER (ORDER BY orders DESC) AS rn
  FROM (SELECT customer_id, COUNT(*) AS orders FROM source('orders') GROUP BY customer_id) AS counted
) AS ranked
WHERE rn <= 2
