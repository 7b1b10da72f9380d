SELECT customer_id, SUM(CASE WHEN qty > 2 THEN qty ELSE 0 END) AS big, COUNT(*) AS n FROM source('orders') GROUP BY customer_id
