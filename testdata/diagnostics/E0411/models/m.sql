SELECT customer_id, SUM(amount) AS total
FROM source('orders') /*+ OPTIONS('scan.startup.mode' = 'latest-offset') */
GROUP BY customer_id
