-- The two customers with the biggest running totals, without their rank:
-- keyed by the customer (the input's unique key).
SELECT customer_id, total
FROM (
  SELECT customer_id, total,
         ROW_NUMBER() OVER (ORDER BY total DESC) AS rn
  FROM ref('customer_totals')
) AS ranked
WHERE rn <= 2
