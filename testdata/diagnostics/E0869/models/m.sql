SELECT o.order_id, r.rate
FROM source('orders') o
JOIN ref('rates') FOR SYSTEM_TIME AS OF PROCTIME() AS r ON o.currency = r.currency
