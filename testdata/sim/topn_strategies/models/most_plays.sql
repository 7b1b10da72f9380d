-- Each team's two players with the most plays, without their rank: a count
-- only grows, so Flink ranks it with UpdatableTopNFunction (UpdateFast), keyed
-- by the player.
SELECT team, player, plays
FROM (
  SELECT team, player, plays,
         ROW_NUMBER() OVER (PARTITION BY team ORDER BY plays DESC) AS rn
  FROM (SELECT team, player, COUNT(*) AS plays FROM source('plays') GROUP BY team, player) AS counted
) AS ranked
WHERE rn <= 2
