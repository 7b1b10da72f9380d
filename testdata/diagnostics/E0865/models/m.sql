SELECT o.order_id, r.rate
FROM source('orders') o
JOIN source('rate_updates') FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency
