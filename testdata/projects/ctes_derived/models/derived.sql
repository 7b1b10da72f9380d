SELECT t.order_id, t.total_qty
FROM (SELECT o.order_id, o.qty + 1 AS total_qty FROM source('orders') AS o WHERE o.qty > 0) AS t
WHERE t.total_qty < 50
