-- customer_id may be null: those rows stay out of the upsert Kafka sink (W0792).
SELECT customer_id, COUNT(*) AS n FROM source('orders') GROUP BY customer_id
