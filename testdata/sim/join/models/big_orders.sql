-- A residual condition beside the key, and a column each side has, qualified.
SELECT o.order_id, o.customer_id, c.name, o.amount
FROM source('orders') AS o
INNER JOIN source('customers') AS c
  ON c.customer_id = o.customer_id AND o.amount > 2 AND (c.tier = 'gold' OR o.amount > 5)
