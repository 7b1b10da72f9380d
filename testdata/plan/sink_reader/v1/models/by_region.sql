SELECT sum("Weird_Case") * Sum("Weird_Case") AS a1
FROM ref('totals')
GROUP BY total, region
