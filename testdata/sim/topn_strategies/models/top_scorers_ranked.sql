-- Each team's two top scorers, ranked (Retract with the row number).
SELECT team, rn, player, total
FROM (
  SELECT team, player, total,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY total DESC) AS rn
  FROM (SELECT team, player, SUM(points) AS total FROM source('plays') GROUP BY team, player HAVING SUM(points) > 0) AS summed
) AS ranked
WHERE rn <= 2
