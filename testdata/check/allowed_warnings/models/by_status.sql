SELECT status, COUNT(*) AS n FROM source('orders') GROUP BY status
