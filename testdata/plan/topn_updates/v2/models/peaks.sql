SELECT customer_id, MIN(amount) AS peak FROM source('orders') GROUP BY customer_id
