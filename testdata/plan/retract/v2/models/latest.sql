-- Now one row per order, its largest amount so far: an upsert stream.
SELECT order_id, MAX(region) AS region, MAX(amount) AS amount FROM source('orders') GROUP BY order_id
