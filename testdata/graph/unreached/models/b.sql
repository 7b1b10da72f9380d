SELECT a FROM source('s')
