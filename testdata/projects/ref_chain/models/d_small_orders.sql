SELECT order_id, amount FROM ref('a_clean') WHERE amount < 10
