SELECT user_id, window_start FROM source('clicks')
