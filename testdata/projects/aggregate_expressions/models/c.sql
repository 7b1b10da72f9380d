WITH x AS (SELECT customer_id, SUM(amount) AS t, MIN(amount) AS mi FROM source('orders') GROUP BY customer_id) SELECT customer_id, t * 1 AS t1, mi + 1 AS m1 FROM x
