select o.order_id, c.name
  from source('orders') o
  join source('customers') c
    on c.customer_id = o.customer_id -- sides swapped
