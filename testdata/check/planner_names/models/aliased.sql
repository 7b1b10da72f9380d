SELECT sum(qty) + 52 AS a0, SUM(CAST(qty AS DECIMAL(20,4))) + 92 AS a1 FROM source('orders') AS o
