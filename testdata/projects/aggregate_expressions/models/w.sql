SELECT customer_id, total + 0 AS z FROM (SELECT customer_id, t AS total FROM (SELECT customer_id, SUM(amount) AS t FROM source('orders') GROUP BY customer_id) a) b
