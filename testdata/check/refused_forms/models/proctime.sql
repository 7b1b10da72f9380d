SELECT order_id, PROCTIME() AS pt
FROM source('orders')
