SELECT order_id FROM source('orders') WHERE SUM(amount) > 0
