SELECT order_id FROM ref('self')
