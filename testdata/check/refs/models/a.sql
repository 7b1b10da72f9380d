SELECT * FROM source('order')
