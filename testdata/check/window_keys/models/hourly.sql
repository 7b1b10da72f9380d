SELECT window_start, window_end, currency, SUM(amount) AS total FROM source('orders') GROUP BY window_start, window_end, currency
