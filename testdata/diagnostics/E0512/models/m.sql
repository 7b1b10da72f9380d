SELECT x FROM (SELECT order_id, amount FROM source('orders')) AS t(x)
