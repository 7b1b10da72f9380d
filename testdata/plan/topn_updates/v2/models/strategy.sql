SELECT rn, customer_id, peak FROM (SELECT customer_id, peak, ROW_NUMBER() OVER (ORDER BY peak DESC) AS rn FROM ref('peaks')) WHERE rn <= 3
