SELECT channel, COUNT(*) AS n FROM source('orders') GROUP BY channel
