SELECT kind, SUM(amount) AS total, MAX(amount) AS largest, COUNT(*) AS n FROM ref('latest') GROUP BY kind
