SELECT user_id, window_start, window_end,
  COUNT(*) AS clicks,
  COUNT(DISTINCT url) AS pages,
  SUM(amount) AS total,
  MIN(amount) AS smallest,
  MAX(ts) AS last_click
FROM TABLE(SESSION(TABLE source('clicks') PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '5' MINUTES))
GROUP BY user_id, window_start, window_end
