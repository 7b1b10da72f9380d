SELECT payment_id FROM ref('loop_b')
