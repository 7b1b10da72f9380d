SELECT user_id FROM source('clicks')
