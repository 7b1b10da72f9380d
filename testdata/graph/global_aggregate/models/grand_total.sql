SELECT SUM(amount) AS total FROM source('orders')
