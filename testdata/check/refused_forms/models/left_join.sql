SELECT o.order_id, c.total_spend
FROM source('orders') o
LEFT JOIN ref('customer_totals') c ON o.customer_id = c.customer_id
