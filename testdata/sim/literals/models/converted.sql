-- Decimal literals meet integer and decimal columns: Flink computes each
-- product exactly, then the plan's DOUBLE takes the exact value.
SELECT
  auction,
  price * 0.908 AS price_eur,
  qty * 1.1 AS qty_up,
  amount * 0.07 AS tax,
  amount + 0.005 AS nudged,
  price / 0.3 AS per_third,
  price - 0.1 AS less,
  weight * 0.1 AS weight_tenth,
  (price * 0.908) * 3 AS thrice,
  1.5 AS flat,
  7 AS seven
FROM source('bids')
WHERE amount > 0.1
