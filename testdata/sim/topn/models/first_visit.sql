-- The first visit of each user over a source that keeps late events: the
-- deduplication itself ignores a row behind the watermark.
SELECT user_id, page, ts
FROM (SELECT user_id, page, ts, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts ASC) AS rn FROM source('visits'))
WHERE rn = 1
