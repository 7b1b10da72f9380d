SELECT MIN(amount) AS smallest, MAX(amount) AS largest, SUM(qty) AS qty
FROM ref('order_latest')
