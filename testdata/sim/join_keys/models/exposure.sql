-- Keyed by the left side's key: the right side is joined on exactly its key.
SELECT b.account, b.total, l.loaned
FROM ref('bid_totals') b
JOIN ref('loan_totals') l ON b.account = l.account
