SELECT o.order_id, MAX(c.name) AS name
FROM source('orders') o
JOIN source('customers') c ON o.customer_id = c.customer_id
GROUP BY o.order_id
