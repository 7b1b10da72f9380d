SELECT kind, COUNT(*) AS n, SUM(value) AS total FROM source('events') GROUP BY kind
