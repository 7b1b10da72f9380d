-- A comparison on the key proves it not null.
SELECT customer_id, n FROM ref('by_customer') WHERE customer_id > 0 AND n > 1
