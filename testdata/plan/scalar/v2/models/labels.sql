select customer_id,
  case when qty > 2 then 'many' else null end as label
from source('orders')
where customer_id in (1,2)
