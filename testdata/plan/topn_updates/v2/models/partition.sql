SELECT customer_id, rn, region, total FROM (SELECT customer_id, region, total, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY total DESC) AS rn FROM ref('totals')) WHERE rn <= 3
