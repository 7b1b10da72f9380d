SELECT customer_id, COUNT(*) AS n FROM ref('up') GROUP BY customer_id
