SELECT currency, rate
FROM ref('rates') FOR SYSTEM_TIME AS OF ts
