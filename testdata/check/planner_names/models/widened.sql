SELECT CAST(qty AS BIGINT), qty FROM source('orders')
