SELECT order_id, customer_id FROM ref('a_clean') WHERE flagged
