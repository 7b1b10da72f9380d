-- Each team's two biggest plays, ranked: an append input (AppendFast),
-- AppendOnlyTopNFunction.
SELECT team, rn, player, points
FROM (
  SELECT team, player, points,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY points DESC) AS rn
  FROM source('plays')
) AS ranked
WHERE rn <= 2
