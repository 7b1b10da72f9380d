SELECT user_id FROM source('views')
