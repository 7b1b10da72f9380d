//! An event-time temporal join drops the versions Flink's
//! TemporalRowTimeJoinOperator drops: once the watermark passes a newer
//! version, an older one is gone, so a late row (kept by its source) that
//! needed it joins nothing. Flink interleaves two sources in its own order,
//! so the conformance suite cannot pin this; the simulator's order is the
//! fixture's.

mod common;

use common::Fixture;

const PROJECT: &str = r#"
//- /streamform.yml
name: shop
version: 1
models:
  rates:
    materialized: upsert
    key: [currency]
//- /sources.yml
sources:
  orders:
    connector: kafka
    topic: orders
    event_time: ts
    watermark: 0s
    late_events: keep
    schema:
      order_id: int64
      currency: string
      ts: timestamp
  rate_updates:
    connector: kafka
    topic: rate-updates
    event_time: ts
    watermark: 0s
    schema:
      currency: string
      rate: decimal(10,4)
      ts: timestamp
//- /models/rates.sql
SELECT currency, rate, ts FROM (
  SELECT currency, rate, ts, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rn
  FROM source('rate_updates') WHERE currency IS NOT NULL
) WHERE rn = 1
//- /models/converted.sql
SELECT o.order_id, r.rate
FROM source('orders') o
JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency
//- /tests/late.yml
model: converted
given:
  - {source: rate_updates, event: {currency: EUR, rate: "1.0000", ts: "2024-01-01T10:00:00Z"}}
  - {source: rate_updates, event: {currency: EUR, rate: "2.0000", ts: "2024-01-01T10:10:00Z"}}
  # The join's watermark reaches 10:10: EUR's timer (10:00) fires and drops
  # the 10:00 version, since the 10:10 one is valid at the watermark.
  - {source: orders, event: {order_id: 1, currency: EUR, ts: "2024-01-01T10:20:00Z"}}
  # Watermark 10:20: order 1 joins the 10:10 version.
  - {source: rate_updates, event: {currency: XXX, rate: "1.0000", ts: "2024-01-01T10:30:00Z"}}
  # Late, kept by the source: the version valid at 10:05 is gone, so it joins nothing.
  - {source: orders, event: {order_id: 2, currency: EUR, ts: "2024-01-01T10:05:00Z"}}
  - {source: orders, event: {order_id: 3, currency: EUR, ts: "2024-01-01T10:40:00Z"}}
expect:
  - {op: insert, order_id: 1, rate: "2"}
"#;

#[test]
fn a_late_row_finds_only_the_versions_flink_still_keeps() {
    assert_eq!(Fixture::new(PROJECT).run_fixture("tests/late.yml"), 1);
}
