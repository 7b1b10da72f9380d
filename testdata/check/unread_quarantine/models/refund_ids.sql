SELECT id FROM source('refunds')
