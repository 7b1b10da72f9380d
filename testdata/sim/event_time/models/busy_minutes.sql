SELECT window_start, window_end, COUNT(*) AS n
FROM source('clicks')
GROUP BY window_start, window_end
HAVING COUNT(*) > 1
