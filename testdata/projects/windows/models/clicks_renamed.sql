-- The event-time column renamed: the window follows it as `t`.
SELECT user_id, amount, ts AS t FROM source('clicks')
