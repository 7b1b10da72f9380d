SELECT b.account, l.account AS loan_account, b.total, l.loaned
FROM ref('bid_totals') b
LEFT JOIN ref('loan_totals') l ON b.account = l.account
