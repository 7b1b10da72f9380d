SELECT payment_id, amount FROM source('payments')
