SELECT auction, SUM(price * 0.908) AS eur, SUM(0.1) AS tenths, COUNT(*) AS bids
FROM source('bids')
GROUP BY auction
