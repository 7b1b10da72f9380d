SELECT tier, COUNT(*) AS orders, SUM(amount) AS spend
FROM ref('enriched')
GROUP BY tier
