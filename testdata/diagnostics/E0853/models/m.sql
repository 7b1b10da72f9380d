SELECT c.customer_id, c.name, t.n
FROM source('customers') c
JOIN ref('totals') t ON c.customer_id = t.n
