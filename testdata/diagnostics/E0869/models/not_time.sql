SELECT o.order_id, r.rate
FROM source('orders') o
JOIN ref('rates') FOR SYSTEM_TIME AS OF o.order_id AS r ON o.currency = r.currency
