SELECT symbol, price, ts FROM source('ticks')
