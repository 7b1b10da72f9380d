-- The three customers with the biggest running totals.
SELECT rn, customer_id, total
FROM (
  SELECT customer_id, total,
         ROW_NUMBER() OVER (ORDER BY total DESC) AS rn
  FROM ref('customer_totals')
) AS ranked
WHERE rn <= 3
