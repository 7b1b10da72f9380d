SELECT region, rn, customer_id, total FROM (SELECT customer_id, region, total, ROW_NUMBER() OVER (PARTITION BY region ORDER BY total DESC) AS rn FROM ref('totals')) WHERE rn <= 3
