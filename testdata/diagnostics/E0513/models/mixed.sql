SELECT order_id, CASE WHEN amount > 10 THEN 1 ELSE 'a' END AS c FROM source('orders')
