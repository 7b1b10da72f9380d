SELECT ordr_id FROM source('orders')
