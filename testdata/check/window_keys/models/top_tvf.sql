SELECT window_start, currency, total, rn FROM (
  SELECT window_start, currency, total, ROW_NUMBER() OVER (PARTITION BY window_start ORDER BY total DESC) AS rn
  FROM (
    SELECT window_start, window_end, currency, SUM(amount) AS total
    FROM TABLE(TUMBLE(TABLE source('orders'), DESCRIPTOR(ts), INTERVAL '1' HOUR))
    GROUP BY window_start, window_end, currency
  )
) WHERE rn <= 3
