SELECT order_id, customer_id, amount * 2 AS doubled, amount / 3 AS third, price + 1 AS p1,
       CAST(qty AS BIGINT) AS q, qty * 2 AS q2, NOT is_gift AS paid, CAST(amount AS DOUBLE) AS f
FROM source('orders')
WHERE amount > 0 AND status IS NOT NULL
