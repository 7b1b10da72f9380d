-- A global aggregate: no key, so its Kafka sink is a debezium-json changelog.
SELECT COUNT(*) AS n, SUM(amount) AS total FROM source('orders')
