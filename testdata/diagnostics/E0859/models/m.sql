SELECT o.order_id, s.shipped_at
FROM source('orders') o
JOIN ref('latest') s ON o.order_id = s.order_id AND s.shipped_at BETWEEN o.ts AND o.ts + INTERVAL '1' HOUR
