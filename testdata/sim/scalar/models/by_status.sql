SELECT status,
  SUM(CASE WHEN qty > 2 THEN qty ELSE 0 END) AS big_qty,
  COUNT(*) AS n,
  COUNT(DISTINCT order_id) AS orders,
  SUM(DISTINCT qty) AS distinct_qty,
  AVG(qty) AS mean_qty,
  AVG(amount) AS mean_amount,
  AVG(price) FILTER (WHERE qty > 3) AS mean_big_price,
  COUNT(*) FILTER (WHERE qty > 3) AS big_orders,
  MAX(qty) FILTER (WHERE status <> 'void') AS top_qty,
  CASE WHEN SUM(qty) >= 10 THEN 'busy' ELSE 'quiet' END AS load
FROM source('orders')
WHERE status NOT IN ('void')
GROUP BY status
HAVING COUNT(*) BETWEEN 1 AND 1000
