SELECT o.order_id, o.amount, p.paid_at
FROM source('orders') o
JOIN source('payments') p ON o.order_id = p.order_id
