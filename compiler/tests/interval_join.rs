//! An interval join drops stored rows when Flink's RowTimeIntervalJoin does:
//! late rows (kept by their sources) find only what is still stored. Flink
//! interleaves two sources in its own order, so the conformance suite cannot
//! pin this; the simulator's order is the fixture's.

mod common;

use common::Fixture;

const PROJECT: &str = r#"
//- /streamform.yml
name: shop
version: 1
//- /sources.yml
sources:
  orders:
    connector: kafka
    topic: orders
    event_time: placed_at
    watermark: 5s
    late_events: keep
    schema:
      order_id: int64
      placed_at: timestamp
  shipments:
    connector: kafka
    topic: shipments
    event_time: shipped_at
    watermark: 5s
    late_events: keep
    schema:
      order_id: int64
      shipped_at: timestamp
//- /models/shipped.sql
SELECT o.order_id, s.shipped_at
FROM source('orders') o
JOIN source('shipments') s ON o.order_id = s.order_id AND s.shipped_at BETWEEN o.placed_at AND o.placed_at + INTERVAL '1' HOUR
//- /tests/late.yml
model: shipped
given:
  - {source: orders, event: {order_id: 1, placed_at: "2024-01-01T10:00:00Z"}}
  - {source: orders, event: {order_id: 2, placed_at: "2024-01-01T11:00:00Z"}}
  - {source: shipments, event: {order_id: 9, shipped_at: "2024-01-01T12:00:00Z"}}
  # The join's watermark reaches 11:59:55: order 1's timer (11:00:00.001) fires and drops it;
  # order 2's (12:00:00.001) has not.
  - {source: orders, event: {order_id: 3, placed_at: "2024-01-01T12:10:00Z"}}
  # Late, kept: order 1 is gone; order 2 is still stored and joins.
  - {source: shipments, event: {order_id: 1, shipped_at: "2024-01-01T10:30:00Z"}}
  - {source: shipments, event: {order_id: 2, shipped_at: "2024-01-01T11:20:00Z"}}
  # A late order whose hour the watermark has passed is not stored, so no shipment finds it.
  - {source: orders, event: {order_id: 5, placed_at: "2024-01-01T10:40:00Z"}}
  - {source: shipments, event: {order_id: 5, shipped_at: "2024-01-01T10:50:00Z"}}
expect:
  - {op: insert, order_id: 2, shipped_at: "2024-01-01T11:20:00Z"}
"#;

#[test]
fn late_rows_find_only_the_rows_flink_still_stores() {
    assert_eq!(Fixture::new(PROJECT).run_fixture("tests/late.yml"), 1);
}
