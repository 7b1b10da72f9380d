SELECT order_id, IFNULL(note, '') AS note FROM source('orders')
