SELECT payment_id, MD5(country) AS h, IFF(amount > 0, 1, 0) AS pos, CAST(ts AS TIME) AS t, NVL(amnt, 0) AS a FROM source('payments')
