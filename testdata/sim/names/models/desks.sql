-- T.* is t.*: every column of trades, in the plan's order (by name).
SELECT T.* FROM source('trades') AS T WHERE T.desk <> 'test'
