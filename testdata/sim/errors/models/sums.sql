SELECT customer_id, SUM(order_id) AS s, SUM(amount) AS total FROM source('orders') GROUP BY customer_id
