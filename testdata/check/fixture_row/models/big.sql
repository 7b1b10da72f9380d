SELECT payment_id, amount, ts FROM source('payments')
