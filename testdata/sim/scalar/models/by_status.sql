SELECT status,
  SUM(CASE WHEN qty > 2 THEN qty ELSE 0 END) AS big_qty,
  COUNT(*) AS n,
  CASE WHEN SUM(qty) >= 10 THEN 'busy' ELSE 'quiet' END AS load
FROM source('orders')
WHERE status NOT IN ('void')
GROUP BY status
HAVING COUNT(*) BETWEEN 1 AND 1000
