-- Each order at the rate valid when it was placed.
SELECT o.order_id, o.amount * r.rate AS converted, o.placed_at
FROM source('orders') o
JOIN ref('rates') FOR SYSTEM_TIME AS OF o.placed_at AS r
  ON o.currency = r.currency
