SELECT url,
  ts + INTERVAL '1' HOUR AS next_hour,
  ts - INTERVAL '90' MINUTE AS earlier,
  INTERVAL '1.250' SECOND + ts AS nudged,
  ts + INTERVAL '100' DAY AS later,
  seen + INTERVAL '-2' DAYS AS seen_before,
  seen - INTERVAL '3600' SECOND AS seen_hour_ago
FROM source('clicks')
WHERE ts >= TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1' DAY
  AND (seen IS NULL OR seen < ts + INTERVAL '10' MINUTE)
