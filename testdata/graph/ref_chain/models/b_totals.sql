SELECT customer_id, SUM(amount) AS total FROM ref('a_clean') GROUP BY customer_id
