SELECT x.* FROM source('orders') AS o
