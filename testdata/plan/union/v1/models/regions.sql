SELECT region, COUNT(*) AS n
FROM (SELECT 'eu' AS region FROM source('eu_orders')
      UNION ALL
      SELECT 'us' AS region FROM source('us_orders')) AS o
GROUP BY region
