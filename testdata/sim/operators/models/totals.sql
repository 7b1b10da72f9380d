SELECT customer_id, SUM(amount) AS total, COUNT(*) AS n, COUNT(status) AS with_status,
       MIN(status) AS lo, MAX(ts) AS last, SUM(qty) AS q, SUM(price) AS p
FROM source('orders')
GROUP BY customer_id
