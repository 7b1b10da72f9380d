SELECT url, COUNT(*) AS hits FROM source('clicks') WHERE url IS NOT NULL GROUP BY url
