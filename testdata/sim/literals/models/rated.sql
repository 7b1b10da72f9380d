-- Comparisons of exact columns with decimal literals are exact.
SELECT auction, rate
FROM source('bids')
WHERE rate > 0.1 AND rate BETWEEN 0.1 AND 0.3 AND rate NOT IN (0.2, 0.25)
