-- Every order, with the rate valid at its time when there is one (LEFT).
SELECT o.order_id, o.currency, r.rate, o.ts
FROM source('orders') o
LEFT JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r
  ON r.currency = o.currency
WHERE o.amount > 0
