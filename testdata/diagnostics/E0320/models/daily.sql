SELECT order_id, CAST(ts AS DATE) AS d FROM source('orders')
