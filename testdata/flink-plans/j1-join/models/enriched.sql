SELECT o.order_id, c.name, o.amount
FROM source('orders') o
JOIN source('customers') c ON o.customer_id = c.customer_id
