SELECT status, COUNT(status) AS n, SUM(price) AS revenue
FROM source('orders')
GROUP BY status
HAVING n > 1
