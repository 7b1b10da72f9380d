SELECT order_id, ts FROM source('orders') ORDER BY ts
