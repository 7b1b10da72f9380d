-- Every customer, with how many orders it has (0 until its first arrives).
SELECT c.name, COUNT(o.order_id) AS orders
FROM source('orders') o
RIGHT JOIN source('customers') c ON o.customer_id = c.customer_id
GROUP BY c.name
