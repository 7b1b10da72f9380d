SELECT o.order_id, c.customer_id
FROM source('orders') o
JOIN ref('customer_totals') FOR SYSTEM_TIME AS OF PROCTIME() AS c ON o.customer_id = c.customer_id
