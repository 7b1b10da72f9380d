select o.order_id, max(c.name) as name
from source('orders') as o
left outer join source('customers') as c
  on (c.customer_id = o.customer_id) and o.amount > 2
GROUP BY o.order_id
