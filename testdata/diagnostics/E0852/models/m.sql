SELECT o.order_id, c.name
FROM source('orders') o
JOIN source('customers') c ON o.amount > 10 AND c.name <> ''
