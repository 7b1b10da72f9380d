-- The inputs swapped: source::0 now reads us_orders.
SELECT region, COUNT(*) AS n
FROM (SELECT 'us' AS region FROM source('us_orders')
      UNION ALL
      SELECT 'eu' AS region FROM source('eu_orders')) AS o
GROUP BY region
