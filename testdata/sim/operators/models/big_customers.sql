SELECT customer_id, total FROM ref('totals') WHERE total > 10
