SELECT user_id, total FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn FROM ref('totals')) WHERE rn = 1
