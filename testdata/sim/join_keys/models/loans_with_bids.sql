-- Every account with loans, with its bids while it has some.
SELECT l.account AS account, b.total, l.loaned
FROM ref('bid_totals') b
RIGHT JOIN ref('loan_totals') l ON b.account = l.account
