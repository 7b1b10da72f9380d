SELECT x FROM source('other')
