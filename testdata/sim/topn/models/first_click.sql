-- Each user's first click on event time: Flink's Deduplicate keeping the
-- first row, emitted once the watermark passes it.
SELECT user_id, url, ts
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts) AS rn
  FROM source('clicks')
)
WHERE rn = 1
