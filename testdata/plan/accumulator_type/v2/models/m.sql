SELECT customer_id, MAX(qty) AS most, COUNT(*) AS n FROM source('orders') GROUP BY customer_id
