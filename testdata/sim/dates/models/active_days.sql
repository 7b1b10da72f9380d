SELECT customer,
       COUNT(DISTINCT d) AS days,
       SUM(CASE WHEN d = CAST('2024-01-01' AS DATE) THEN 1 ELSE 0 END) AS first_day,
       SUM(CASE WHEN placed_day = d THEN 1 ELSE 0 END) AS same_day
FROM ref('order_days')
GROUP BY customer
