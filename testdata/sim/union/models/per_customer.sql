SELECT customer_id, COUNT(*) AS n, SUM(amount) AS total
FROM ref('all_orders')
GROUP BY customer_id
