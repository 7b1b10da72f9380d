-- Each team's player with the best play, and how many plays they made: a
-- MAX only grows, so this Top-1 is UpdateFast, which Flink runs with
-- FastTop1Function.
SELECT team, rn, player, best, plays
FROM (
  SELECT team, player, best, plays,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY best DESC) AS rn
  FROM (SELECT team, player, MAX(points) AS best, COUNT(*) AS plays FROM source('plays') GROUP BY team, player) AS scored
) AS ranked
WHERE rn = 1
