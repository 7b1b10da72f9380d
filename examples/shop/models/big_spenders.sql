-- Customers who have spent more than 100.
SELECT customer_id, total_spend
FROM ref('customer_totals')
WHERE total_spend > 100
