SELECT a FROM source('missing')
