SELECT DISTINCT customer_id, status
FROM source('orders')
