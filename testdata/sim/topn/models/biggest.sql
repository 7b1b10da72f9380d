-- Each user's biggest click, the earliest of equal ones: a Top-1 on a
-- column that is not the event time.
SELECT user_id, url, amount
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY amount DESC, ts ASC) AS rn FROM source('clicks')) t
WHERE t.rn < 2
