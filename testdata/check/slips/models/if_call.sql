SELECT order_id, IF(qty > 0, qty, 0) AS q FROM source('orders')
