SELECT user_id, COUNT(*) AS views FROM ref('kept_time') GROUP BY user_id
