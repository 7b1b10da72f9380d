SELECT   customer_id,
       sum(qty) AS units
FROM source('orders')
GROUP BY customer_id
