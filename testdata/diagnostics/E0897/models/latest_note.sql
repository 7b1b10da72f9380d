SELECT id, note FROM source('notes')
