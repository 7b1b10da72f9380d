-- An output column renamed above the join: what the join stores is unchanged.
SELECT o.order_id, c.name AS customer
FROM source('orders') o
JOIN source('customers') c ON o.customer_id = c.customer_id
