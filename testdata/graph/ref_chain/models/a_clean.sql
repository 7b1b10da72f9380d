SELECT order_id, customer_id, amount, flagged FROM source('orders') WHERE amount > 0
