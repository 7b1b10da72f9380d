-- What each customer has spent so far.
SELECT customer_id, SUM(amount) AS total_spend, COUNT(*) AS order_count
FROM ref('paid_orders')
GROUP BY customer_id
