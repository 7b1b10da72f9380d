-- Grouped by the right side's currency_code, which keeps its name (the key).
SELECT C.currency_code, COUNT(*) AS trades, SUM(t.amount) AS amount
FROM source('trades') t
JOIN source('currencies') C ON t.currency_code = c.currency_code
GROUP BY C.currency_code
