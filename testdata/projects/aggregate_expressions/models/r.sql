SELECT customer_id, t + 1 AS t1 FROM ref('d2')
