SELECT b.account, b.total, l.loaned
FROM ref('bid_totals') b
JOIN ref('loan_totals') l ON b.account = l.account
