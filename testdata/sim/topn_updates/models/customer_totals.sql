-- Each customer's running total; a customer whose refunds bring it to 0
-- or below is deleted.
SELECT customer_id, SUM(amount) AS total
FROM source('orders')
GROUP BY customer_id
HAVING SUM(amount) > 0
