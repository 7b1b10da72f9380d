SELECT user_id, url FROM source('clicks') WHERE user_id > 0
