-- best_player without the row number: keyed by the team.
SELECT team, player, best, plays
FROM (
  SELECT team, player, best, plays,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY best DESC) AS rn
  FROM (SELECT team, player, MAX(points) AS best, COUNT(*) AS plays FROM source('plays') GROUP BY team, player) AS scored
) AS ranked
WHERE rn = 1
