SELECT c.name, COUNT(o.order_id) AS orders
FROM source('customers') c
LEFT JOIN source('orders') o ON o.customer_id = c.customer_id
GROUP BY c.name
