SELECT o.order_id, s.carrier
FROM source('orders') o
JOIN source('shipments') s ON o.order_id = s.order_id
