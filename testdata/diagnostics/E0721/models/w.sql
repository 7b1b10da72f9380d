SELECT user_id, window_start, window_end, COUNT(*) AS n FROM source('plain') GROUP BY user_id, window_start, window_end
