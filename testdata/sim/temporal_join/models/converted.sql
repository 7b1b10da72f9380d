-- Each order converted at the rate valid when it was placed: the version
-- of `rates` as of the order's event time, emitted once the watermarks of
-- both inputs pass the order.
SELECT o.order_id, o.currency, o.amount * r.rate AS converted, o.ts
FROM source('orders') AS o
JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r
  ON o.currency = r.currency
WHERE o.amount > 1
