-- Each user's three biggest clicks, ranked: a Top-N keyed by the user and
-- the rank.
SELECT user_id, rn, url, amount
FROM (
  SELECT user_id, url, amount,
         ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY amount DESC) AS rn
  FROM source('clicks')
  WHERE amount > 0
) AS ranked
WHERE rn <= 3
