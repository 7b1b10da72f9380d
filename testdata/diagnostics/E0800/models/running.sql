SELECT user_id, SUM(amount) OVER (PARTITION BY user_id ORDER BY ts) AS running FROM source('clicks')
