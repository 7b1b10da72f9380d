SELECT * FROM source('everything')
