-- Each region's three biggest orders: the Rank stores order_id, region, amount.
SELECT region, rn, order_id, amount
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY region ORDER BY amount DESC) AS rn FROM source('orders'))
WHERE rn <= 3
