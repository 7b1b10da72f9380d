-- The operand type passes through a derived table: `t + 1` is decimal(23,2).
SELECT customer_id, t + 1 AS t1, t AS t0 FROM (SELECT customer_id, SUM(amount) AS t FROM source('orders') GROUP BY customer_id) x
