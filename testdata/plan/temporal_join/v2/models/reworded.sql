-- Reformatted, other aliases, the equality swapped.
SELECT ord.order_id,
       ord.amount * rt.rate AS converted
FROM source('orders') AS ord
JOIN ref('rates')
  FOR SYSTEM_TIME AS OF ord.ts AS rt
  ON rt.currency = ord.currency
