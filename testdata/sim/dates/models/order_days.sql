-- The day of each order: from its event time, and from a text field.
SELECT order_id, customer, CAST(ts AS DATE) AS d, CAST(placed AS DATE) AS placed_day
FROM source('orders')
