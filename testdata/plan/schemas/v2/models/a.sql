SELECT customer_id, SUM(amount) AS t FROM source('orders') WHERE qty > 1 GROUP BY customer_id
