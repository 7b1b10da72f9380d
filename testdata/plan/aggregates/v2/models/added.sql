SELECT customer_id, SUM(qty) AS units, MAX(amount) AS biggest FROM source('orders') GROUP BY customer_id
