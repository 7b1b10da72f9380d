SELECT paymnt_id, amont, cuntry FROM source('payments')
