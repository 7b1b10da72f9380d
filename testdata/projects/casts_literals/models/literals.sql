SELECT order_id, qty + 1 AS plus_one, qty - -5 AS minus, amount * 2 AS dbl, amount / 2 AS half,
       amount * 1.50 AS scaled, price * 1e3 AS milli, 'it''s' AS quoted, true AS yes, qty / 2 AS halves
FROM source('orders')
WHERE status != 'x' AND price > 0.10
