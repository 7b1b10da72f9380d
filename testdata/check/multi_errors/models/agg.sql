SELECT payment_id, SUM(amont) AS total FROM source('payments') GROUP BY payment_id
