-- A cast column keeps its qualified display name: `orders.qty`.
SELECT qty::BIGINT, CAST(amount AS DOUBLE), customer_id FROM source('orders')
