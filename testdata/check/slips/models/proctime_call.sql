SELECT order_id, PROCTIME() AS seen FROM source('orders')
