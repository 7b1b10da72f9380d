SELECT user_id, SUM(amount) AS total FROM source('clicks') GROUP BY user_id
