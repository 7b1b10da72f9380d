-- Rows of a FULL OUTER JOIN: matched pairs, orders without a customer, customers without an order.
SELECT COUNT(*) AS total, COUNT(o.order_id) AS with_order, COUNT(c.customer_id) AS with_customer
FROM source('orders') o
FULL OUTER JOIN source('customers') c ON o.customer_id = c.customer_id
