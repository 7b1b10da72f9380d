SELECT o.order_id, r.rate, r.venue
FROM source('orders') o
JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency
