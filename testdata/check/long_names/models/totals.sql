-- A subquery column without AS is named by its text, here 40 terms long.
-- A typo beside it is still suggested; an unknown name over 256
-- characters gets no suggestion.
SELECT customer_id, amont
FROM (SELECT customer_id, amount, order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id + order_id FROM source('orders'))
WHERE customer_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx > 0
