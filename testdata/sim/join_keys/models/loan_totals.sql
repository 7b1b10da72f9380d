SELECT account, SUM(amount) AS loaned
FROM source('loans')
GROUP BY account
