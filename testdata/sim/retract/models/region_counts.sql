-- Two aggregates in one model: the outer one reads the inner one's
-- updates, so it retracts too. How many orders does each region have,
-- counted by size?
SELECT orders, COUNT(*) AS regions
FROM (SELECT region, COUNT(*) AS orders FROM ref('order_latest') GROUP BY region) AS r
GROUP BY orders
