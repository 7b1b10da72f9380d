-- Orders that were paid for.
SELECT order_id, customer_id, amount, ts
FROM source('orders')
WHERE status = 'paid'
