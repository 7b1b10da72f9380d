SELECT kind, SUM(amount) AS total, COUNT(*) AS n
FROM (SELECT kind, amount FROM source('web')
      UNION ALL
      SELECT kind, amount FROM source('app')) AS e
GROUP BY kind
