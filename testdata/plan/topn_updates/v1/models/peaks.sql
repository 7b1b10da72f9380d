SELECT customer_id, MAX(amount) AS peak FROM source('orders') GROUP BY customer_id
