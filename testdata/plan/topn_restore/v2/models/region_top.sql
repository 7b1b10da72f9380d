-- order_id no longer read: Flink no longer stores it, so the stored row changes.
SELECT region, rn, amount
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY region ORDER BY amount DESC) AS rn FROM source('orders'))
WHERE rn <= 3
