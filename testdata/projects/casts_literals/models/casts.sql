SELECT CAST(qty AS BIGINT) AS q64, CAST(qty AS INT) AS q32, CAST(amount AS DOUBLE) AS amt_f,
       CAST(qty AS DECIMAL(10,2)) AS q_dec, CAST(order_id AS VARCHAR) AS id_text,
       CAST(status AS STRING) AS status_text, qty::BIGINT AS q_colon,
       CAST(price AS BOOLEAN) AS flag
FROM source('orders')
