SELECT status, SUM(amount) * 2 FROM source('orders') GROUP BY status
