-- The two cheapest clicks overall (no PARTITION BY: one ranking), an
-- unknown amount last: NULLS LAST is not ASC's default.
SELECT rn, user_id, url, amount
FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY amount ASC NULLS LAST) AS rn FROM source('clicks'))
WHERE rn <= 2
