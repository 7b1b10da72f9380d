-- Each order as its events leave it: an upsert stream whose rows change
-- (amount, the region moving) and disappear (HAVING turns false).
SELECT order_id, MAX(region) AS region, SUM(amount) AS amount, MAX(qty) AS qty
FROM source('order_events')
GROUP BY order_id
HAVING SUM(amount) > 0
