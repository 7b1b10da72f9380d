SELECT o.order_id, t.tag
FROM source('orders') o
CROSS JOIN UNNEST(ARRAY['a', 'b']) AS t(tag)
