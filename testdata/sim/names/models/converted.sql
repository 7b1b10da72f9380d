-- The right side's currency_code is named currency_code, as on Flink: the
-- left side's is not selected. The upper-case alias folds like any name.
SELECT T.trade_id, c.currency_code, T.amount * c.rate AS converted
FROM source('trades') T
JOIN source('currencies') c ON T.currency_code = c.currency_code
