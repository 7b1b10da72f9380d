SELECT account, SUM(amount) AS total, COUNT(*) AS bids
FROM source('bids')
GROUP BY account
