SELECT customer_id, CASE WHEN qty > 2 THEN 'many' END AS label FROM source('orders') WHERE customer_id IN (1, 2)
