-- Every account that bid, with its loans while it has some.
SELECT b.account, b.total, l.loaned
FROM ref('bid_totals') b
LEFT JOIN ref('loan_totals') l ON b.account = l.account
