-- How many users' biggest click is on each url: an aggregate over a
-- Top-1, which retracts the row a user's new biggest click replaces.
SELECT url, COUNT(*) AS users
FROM (SELECT user_id, url, amount, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY amount DESC) AS rn FROM source('clicks'))
WHERE rn = 1
GROUP BY url
