-- Orders placed at a tier's prices, with how many customers hold that
-- tier: joined on a column that is not the updating side's key, so its
-- rows are stored by their key (customer_id) under each tier.
SELECT c.tier, COUNT(DISTINCT c.customer_id) AS customers, COUNT(*) AS orders, SUM(o.amount) AS amount
FROM ref('customer_points') c
JOIN source('orders') o ON c.tier = o.tier
GROUP BY c.tier
