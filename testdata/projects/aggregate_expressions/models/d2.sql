SELECT customer_id, SUM(amount) AS t FROM source('orders') GROUP BY customer_id
