SELECT window_start, currency, total, rn FROM (
  SELECT window_start, currency, total, ROW_NUMBER() OVER (PARTITION BY window_start ORDER BY total DESC) AS rn
  FROM ref('hourly')
) WHERE rn <= 3
