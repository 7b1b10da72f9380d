-- Aggregates over an updating input: each replaced or deleted order is
-- taken back from its region before the new row is added.
SELECT region,
       COUNT(*) AS orders,
       SUM(amount) AS total,
       MIN(amount) AS smallest,
       MAX(amount) AS largest,
       AVG(amount) AS mean,
       COUNT(DISTINCT qty) AS qtys,
       SUM(DISTINCT qty) AS qty_sum,
       COUNT(*) FILTER (WHERE amount >= 10) AS big
FROM ref('order_latest')
GROUP BY region
