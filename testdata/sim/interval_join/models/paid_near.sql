-- Payments from just after 10 minutes before the order to just before 30 minutes after it,
-- covering the order's amount: strict bounds, written either way round, and a residual condition.
SELECT o.order_id, o.placed_at, p.paid_at, p.amount AS paid
FROM source('orders') o
JOIN source('payments') p
  ON o.order_id = p.order_id
 AND o.placed_at < p.paid_at + INTERVAL '10' MINUTE
 AND p.paid_at < o.placed_at + INTERVAL '30' MINUTE
WHERE p.amount >= o.amount
