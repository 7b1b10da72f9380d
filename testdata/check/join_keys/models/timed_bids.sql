SELECT bid_id, account, ts FROM source('bids')
