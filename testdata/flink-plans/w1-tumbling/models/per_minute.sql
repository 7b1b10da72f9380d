SELECT user_id, window_start, window_end, SUM(amount) AS total, COUNT(*) AS n FROM source('events') GROUP BY user_id, window_start, window_end
