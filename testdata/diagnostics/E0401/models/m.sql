SELECT order_id, MD5(status) AS h FROM source('orders')
