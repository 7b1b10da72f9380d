-- top_scorer without the row number: keyed by the team.
SELECT team, player, total
FROM (
  SELECT team, player, total,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY total DESC) AS rn
  FROM (SELECT team, player, SUM(points) AS total FROM source('plays') GROUP BY team, player) AS summed
) AS ranked
WHERE rn = 1
