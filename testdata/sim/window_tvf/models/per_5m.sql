-- The same window as `window: {type: tumbling, size: 5m}` in streamform.yml.
SELECT user_id, window_start, window_end, COUNT(*) AS clicks
FROM TABLE(
  TUMBLE(TABLE source('clicks'), DESCRIPTOR(ts), INTERVAL '5' MINUTES)
) AS w
GROUP BY user_id, window_start, window_end
