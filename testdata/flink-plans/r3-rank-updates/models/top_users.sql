SELECT rn, user_id, total FROM (SELECT user_id, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM ref('totals')) WHERE rn <= 3
