SELECT order_id FROM source('orders') HAVING order_id > 1
