SELECT rn, user_id, events FROM (SELECT user_id, events, ROW_NUMBER() OVER (ORDER BY events DESC) AS rn FROM (SELECT user_id, COUNT(*) AS events FROM source('events') GROUP BY user_id)) WHERE rn <= 2
