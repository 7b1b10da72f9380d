SELECT customer_id, region, SUM(amount) AS total FROM source('orders') GROUP BY customer_id, region
