SELECT id, kind FROM source('events') WHERE value > 0
