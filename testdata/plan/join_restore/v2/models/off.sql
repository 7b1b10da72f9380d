-- Retention turned off: Flink restores a join side with a TTL into one without (and back) only by migrating the state.
SELECT o.order_id, c.name
FROM source('orders') o
JOIN source('customers') c ON o.customer_id = c.customer_id
