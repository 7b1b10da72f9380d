SELECT o.order_id, s.carrier
FROM source('orders') o
JOIN source('shipments') s ON o.order_id = s.order_id AND s.shipped_at BETWEEN o.placed_at AND o.placed_at + INTERVAL '1' HOUR
