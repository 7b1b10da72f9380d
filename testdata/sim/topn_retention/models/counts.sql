-- Kept forever: in a job whose table.exec.state.ttl is set, its aggregate
-- says so with STATE_TTL '0s'.
SELECT user_id, COUNT(*) AS n FROM source('clicks') GROUP BY user_id
