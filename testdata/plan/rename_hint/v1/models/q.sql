SELECT customer_id, MAX(amount) AS biggest FROM source('orders') GROUP BY customer_id
