SELECT currency, rate, ts FROM (
  SELECT currency, rate, ts,
         ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rn
  FROM source('rate_updates')
) WHERE rn = 1
