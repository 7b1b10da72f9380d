SELECT a.bid_id, a.ts, b.bid_id AS other_bid
FROM source('bids') a
JOIN source('bids') b ON a.account = b.account
