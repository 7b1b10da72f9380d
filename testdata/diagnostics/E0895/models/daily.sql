SELECT window_start, window_end, COUNT(*) AS n
FROM source('orders')
GROUP BY window_start, window_end
