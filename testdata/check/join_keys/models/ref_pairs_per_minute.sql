SELECT window_start, window_end, COUNT(*) AS pairs
FROM TABLE(TUMBLE(TABLE ref('ref_pairs'), DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end
