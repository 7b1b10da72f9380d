SELECT user_id, ts AS event_ts FROM source('pageviews')
