SELECT user_id, window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE source('clicks'), DESCRIPTOR(url), INTERVAL '5' MINUTE)) GROUP BY user_id, window_start, window_end
