SELECT order_id,
  CASE WHEN amount >= 100 THEN 'big' WHEN amount >= 10 THEN 'medium' ELSE 'small' END AS size,
  CASE status WHEN 'shipped' THEN 1 WHEN 'paid' THEN 2 END AS status_rank,
  COALESCE(note, 'none') AS note_or_none,
  NULLIF(status, 'unknown') AS known_status,
  UPPER(status) AS up,
  LOWER(name) AS low,
  TRIM(name) AS trimmed,
  TRIM(LEADING 'x' FROM code) AS code_trim,
  CHAR_LENGTH(name) AS name_len,
  SUBSTRING(code FROM 2 FOR 3) AS code_mid,
  SUBSTRING(code, -2) AS code_tail,
  CONCAT(status, '-', code) AS tag,
  status || '/' || code AS tag2,
  qty % 3 AS qty_mod,
  ABS(delta) AS abs_delta,
  ROUND(amount, 1) AS amount_1,
  ROUND(price, 0) AS price_0,
  FLOOR(amount) AS amount_floor,
  CEIL(amount) AS amount_ceil
FROM source('orders')
WHERE status IN ('shipped', 'paid', 'unknown')
  AND qty BETWEEN 1 AND 100
  AND code LIKE 'x%'
  AND name NOT LIKE '%!_test' ESCAPE '!'
