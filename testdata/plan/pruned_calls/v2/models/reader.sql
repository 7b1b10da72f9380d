SELECT customer_id, tier FROM ref('customer_points') WHERE points > 0
