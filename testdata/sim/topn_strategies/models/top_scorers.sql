-- Each team's two top scorers by running total, without their rank: a SUM
-- moves either way, so Flink ranks it with RetractableTopNFunction
-- (Retract); a player whose total is not positive leaves the input.
SELECT team, player, total
FROM (
  SELECT team, player, total,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY total DESC) AS rn
  FROM (SELECT team, player, SUM(points) AS total FROM source('plays') GROUP BY team, player HAVING SUM(points) > 0) AS summed
) AS ranked
WHERE rn <= 2
