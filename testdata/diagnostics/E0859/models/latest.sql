SELECT order_id, shipped_at FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY shipped_at DESC) AS rn FROM source('shipments')
) WHERE rn = 1
