SELECT user_id, window_start, window_end, COUNT(*) AS n FROM TABLE(HOP(TABLE source('clicks'), DESCRIPTOR(ts), INTERVAL '0' MINUTE, INTERVAL '10' MINUTE)) GROUP BY user_id, window_start, window_end
