SELECT total, region, "Weird_Case"
FROM source('events')
