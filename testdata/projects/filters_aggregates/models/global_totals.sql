SELECT COUNT(*) AS orders, SUM(qty) AS units FROM source('orders')
