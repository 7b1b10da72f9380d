-- The WHERE proves the key not null: no filter on the sink, no warning.
SELECT status, COUNT(*) AS n FROM source('orders') WHERE status IS NOT NULL GROUP BY status
