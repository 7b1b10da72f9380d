-- v1 with an output column renamed: the Rank and what it stores are unchanged.
SELECT region, rn, order_id, amount AS spent
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY region ORDER BY amount DESC) AS rn FROM source('orders'))
WHERE rn <= 3
