SELECT COUNT(*) AS n FROM ref('totals')
