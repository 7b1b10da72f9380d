SELECT url, window_start, window_end, COUNT(*) AS n, SUM(amount) AS total
FROM source('clicks')
GROUP BY url, window_start, window_end
