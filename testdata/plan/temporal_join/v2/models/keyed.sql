SELECT o.order_id, r.rate
FROM source('orders') o
JOIN ref('rates_by_venue') FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency AND o.venue = r.venue
