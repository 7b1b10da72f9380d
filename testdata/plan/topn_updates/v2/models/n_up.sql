SELECT rn, customer_id, total FROM (SELECT customer_id, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM ref('totals')) WHERE rn <= 5
