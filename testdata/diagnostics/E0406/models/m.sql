SELECT customer_id, COUNT(*) AS n FROM source('orders') GROUP BY 5
