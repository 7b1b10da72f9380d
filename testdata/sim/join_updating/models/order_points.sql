-- Every order, with its customer's points while the customer has some: a
-- deleted customer's orders are padded with nulls again.
SELECT o.order_id, MAX(c.points) AS points, COUNT(c.customer_id) AS matched
FROM source('orders') o
LEFT JOIN ref('customer_points') c ON o.customer_id = c.customer_id
GROUP BY o.order_id
