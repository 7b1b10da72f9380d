SELECT o.order_id, o.amount * r.rate AS converted
FROM source('orders') o
JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency
