SELECT b.account AS bid_account, l.account AS loan_account, b.total, l.loaned
FROM ref('bid_totals') b
FULL OUTER JOIN ref('loan_totals') l ON b.account = l.account
