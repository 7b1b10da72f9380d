-- The not_null contract proves the key not null.
SELECT payment_id, SUM(amount) AS total FROM source('payments') GROUP BY payment_id
