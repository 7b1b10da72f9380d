SELECT user_id, total
FROM ref('totals')
WHERE total > 50
