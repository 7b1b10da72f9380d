-- Paid, non-empty orders.
SELECT order_id, customer_id, qty * 2 AS double_qty, amount
FROM source('orders')
WHERE status = 'paid' AND qty > 0 AND NOT (amount < 1.5) OR status IS NULL
