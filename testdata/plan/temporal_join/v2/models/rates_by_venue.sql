SELECT currency, venue, rate, ts FROM (
  SELECT currency, venue, rate, ts, ROW_NUMBER() OVER (PARTITION BY currency, venue ORDER BY ts DESC) AS rn
  FROM source('rate_updates') WHERE currency IS NOT NULL AND venue IS NOT NULL
) WHERE rn = 1
