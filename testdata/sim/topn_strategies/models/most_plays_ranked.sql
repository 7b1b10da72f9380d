-- Each team's two players with the most plays, ranked (UpdateFast with the
-- row number).
SELECT team, rn, player, plays
FROM (
  SELECT team, player, plays,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY plays DESC) AS rn
  FROM (SELECT team, player, COUNT(*) AS plays FROM source('plays') GROUP BY team, player) AS counted
) AS ranked
WHERE rn <= 2
