SELECT order_id, customer_id, amount
FROM source('orders')
WHERE status = 'paid'
