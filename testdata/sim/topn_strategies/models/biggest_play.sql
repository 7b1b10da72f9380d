-- Each team's biggest play, without the row number: an append input,
-- FastTop1Function.
SELECT team, player, points
FROM (
  SELECT team, player, points,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY points DESC) AS rn
  FROM source('plays')
) AS ranked
WHERE rn = 1
