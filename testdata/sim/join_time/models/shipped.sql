-- Orders shipped within ten minutes of being placed.
SELECT o.order_id, o.placed_at, s.carrier, s.shipped_at
FROM source('orders') o
JOIN source('shipments') s
  ON o.order_id = s.order_id AND s.shipped_at BETWEEN o.placed_at AND o.placed_at + INTERVAL '10' MINUTE
