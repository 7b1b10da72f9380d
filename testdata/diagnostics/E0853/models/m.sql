SELECT t.customer_id, t.n, c.name
FROM ref('totals') t
JOIN source('customers') c ON t.customer_id = c.customer_id
