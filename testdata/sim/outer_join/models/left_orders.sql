-- Every order, with its customer's name once a customer of that id arrives;
-- an order of 2 or less joins no customer, and test customers join nothing.
SELECT o.order_id, MAX(o.amount) AS amount, MAX(c.name) AS name
FROM source('orders') o
LEFT JOIN source('customers') c
  ON o.customer_id = c.customer_id AND o.amount > 2 AND c.tier <> 'test'
GROUP BY o.order_id
