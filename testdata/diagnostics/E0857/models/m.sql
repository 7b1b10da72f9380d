SELECT o.order_id, c.name
FROM source('orders') o
LEFT JOIN source('customers') c ON o.customer_id = c.customer_id
WHERE o.amount > 2 AND c.code = 'gold'
