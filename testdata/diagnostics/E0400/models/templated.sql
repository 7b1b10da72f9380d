SELECT order_id FROM {{ source('orders') }}
