SELECT id FROM source('lake')
