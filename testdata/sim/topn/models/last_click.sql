-- Each user's latest click: the deduplication keeping the last row, an
-- update whenever a later click arrives.
WITH ranked AS (
  SELECT user_id, url, amount, ts,
         ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn
  FROM source('clicks')
)
SELECT user_id, url, amount FROM ranked WHERE rn = 1
