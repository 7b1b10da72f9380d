-- Each team's top scorer with its row number (Retract, one row): Flink
-- plans the number as the constant 1 and ranks without it.
SELECT team, rn, player, total
FROM (
  SELECT team, player, total,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY total DESC) AS rn
  FROM (SELECT team, player, SUM(points) AS total FROM source('plays') GROUP BY team, player) AS summed
) AS ranked
WHERE rn = 1
