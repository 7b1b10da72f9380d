-- Reformatted, and a third input added at the end: source::0 and
-- source::1 keep their ordinals; the new input is source::2.
select order_id, amount
from source('eu_orders')
union all
select order_id, amount from source('us_orders')
union all
select order_id, amount from source('apac_orders')
