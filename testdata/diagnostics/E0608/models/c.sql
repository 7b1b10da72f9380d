SELECT order_id FROM ref('b')
