SELECT o.order_id, s.carrier
FROM source('orders') o
JOIN source('shipments') s
  ON s.order_id = o.order_id
 AND o.placed_at <= s.shipped_at
 AND s.shipped_at <= o.placed_at + INTERVAL '60' MINUTE
