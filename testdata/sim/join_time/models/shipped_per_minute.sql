-- Shipped orders per minute they were placed in: the interval join holds
-- its watermark back by ten minutes, so each minute closes once no order
-- placed in it can still ship in time.
SELECT window_start, window_end, COUNT(*) AS shipped
FROM TABLE(TUMBLE(TABLE ref('shipped'), DESCRIPTOR(placed_at), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end
