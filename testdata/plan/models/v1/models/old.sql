SELECT customer_id, SUM(amount) AS spend FROM source('orders') GROUP BY customer_id
