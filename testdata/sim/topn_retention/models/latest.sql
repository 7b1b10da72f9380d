-- Each user's latest click, forgotten a minute after the user's last one:
-- on Flink the job's table.exec.state.ttl, as no STATE_TTL hint reaches a
-- deduplication.
SELECT user_id, url, ts
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn FROM source('clicks'))
WHERE rn = 1
