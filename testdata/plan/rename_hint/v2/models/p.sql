SELECT customer_id, MAX(amount) AS biggest FROM source('orders') WHERE status != 'void' GROUP BY customer_id
