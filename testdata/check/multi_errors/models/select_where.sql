SELECT payment_id, amout
FROM source('payments')
WHERE contry = 'NL'
