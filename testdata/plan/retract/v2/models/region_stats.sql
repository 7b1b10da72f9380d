SELECT region, MIN(amount) AS smallest, MAX(amount) AS largest, COUNT(*) AS n FROM ref('latest') GROUP BY region
