SELECT order_id, status + 1 AS s FROM source('orders')
