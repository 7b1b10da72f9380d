SELECT customer_id, SUM(amount) AS total_spend FROM source('payments') GROUP BY customer_id
