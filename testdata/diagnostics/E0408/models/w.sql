SELECT user_id, window_start, window_end, COUNT(*) AS n FROM ref('users') GROUP BY user_id, window_start, window_end
