-- Keyed by the right side's key: the left side is joined on exactly its key.
SELECT l.account AS account, b.total, l.loaned
FROM ref('bid_totals') b
JOIN ref('loan_totals') l ON b.account = l.account
