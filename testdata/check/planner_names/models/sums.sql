SELECT customer_id, CAST(SUM(qty) AS BIGINT), SUM(CAST(qty AS BIGINT)) FROM source('orders') GROUP BY customer_id
