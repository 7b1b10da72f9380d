SELECT url, window_start, window_end, COUNT(*) AS n, SUM(amount) AS total, AVG(amount) AS mean
FROM source('clicks')
GROUP BY url, window_start, window_end
