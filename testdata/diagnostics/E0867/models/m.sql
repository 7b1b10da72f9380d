SELECT a.currency, r.rate
FROM ref('rates') a
JOIN ref('rates') FOR SYSTEM_TIME AS OF a.ts AS r ON a.currency = r.currency
