-- Arithmetic over an aggregate sees the original planner's sum type:
-- sum(decimal(10,2)) is decimal(38,2) alone, decimal(20,2) as an operand.
SELECT customer_id, SUM(amount) + 1 AS a1, SUM(amount) * 2 AS a2, SUM(amount) / 2 AS a3, SUM(amount) - SUM(amount) AS a4,
 SUM(amount) * SUM(amount) AS a5, SUM(big) + 1 AS b1, SUM(qty) + 1 AS q1, COUNT(*) + 1 AS c1, MIN(amount) + 1 AS mn, MAX(qty) * 2 AS mx,
 SUM(amount) AS t, CAST(SUM(amount) AS decimal(12,2)) AS c, (SUM(amount) + 1) * 2 AS n, SUM(amount) + customer_id AS k,
 SUM(amount) + SUM(qty) AS s2, SUM(amount) + 1.5 AS fl, SUM(amount * 2) + 1 AS inner1, SUM(f) + 1 AS sf
FROM source('orders')
GROUP BY customer_id
