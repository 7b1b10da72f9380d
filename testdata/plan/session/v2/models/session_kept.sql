SELECT customer_id, window_start, window_end, COUNT(*) AS n, SUM(amount) AS total FROM source('orders') GROUP BY customer_id, window_start, window_end
