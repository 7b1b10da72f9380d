SELECT o.order_id, o.amount, c.name, c.tier
FROM source('orders') o
JOIN source('customers') c ON o.customer_id = c.customer_id
WHERE c.tier <> 'test'
