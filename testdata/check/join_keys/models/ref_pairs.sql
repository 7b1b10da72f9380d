SELECT a.bid_id, a.ts, b.bid_id AS other_bid
FROM ref('timed_bids') a
JOIN ref('timed_bids') b ON a.account = b.account
