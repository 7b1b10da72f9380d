#!/usr/bin/env python3
"""Self-test of rules.py: each rule explains its own difference and no other.
Run: python3 tools/conformance/test_rules.py (no dependencies)."""
import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rules  # noqa: E402

D = decimal.Decimal


def row(k, t):
    return {"customer_id": k, "total": D(t)}


def check(got, want):
    assert got == want, f"{got!r} != {want!r}"


def main():
    key = ["customer_id"]
    # noop-update: Flink skips the unchanged update.
    sim = [("insert", row(1, "5")), ("update", row(1, "5")), ("update", row(1, "6"))]
    fl = [("insert", row(1, "5")), ("update", row(1, "6"))]
    check(rules.classify_ops(fl, sim, key, False)[0:1], ("FINAL",))
    assert "noop-update" in rules.classify_ops(fl, sim, key, False)[1]
    # ...but a dropped real update is not explained.
    check(rules.classify_ops([("insert", row(1, "5"))], sim, key, False), None)
    # first-upsert: +U for a key's first row.
    sim = [("insert", row(1, "11")), ("update", row(1, "12"))]
    fl = [("update", row(1, "11")), ("update", row(1, "12"))]
    assert "first-upsert" in rules.classify_ops(fl, sim, key, False)[1]
    # an equal final table with a different value on the way is not enough.
    fl = [("insert", row(1, "10")), ("update", row(1, "12"))]
    check(rules.classify_ops(fl, sim, key, False), None)
    # No rule turns an update into a delete and an insert of its key, or back.
    sim = [("insert", row(1, "5")), ("update", row(1, "6"))]
    fl = [("insert", row(1, "5")), ("delete", row(1, "5")), ("insert", row(1, "6"))]
    check(rules.classify_ops(fl, sim, key, False), None)
    check(rules.classify_ops(sim, fl, key, False), None)
    # window-order: rows of one window in any order, windows in order.
    w1 = [{"k": "b", "window_start": 0, "window_end": 60}, {"k": "a", "window_start": 0, "window_end": 60}]
    w2 = [{"k": "a", "window_start": 60, "window_end": 120}]
    sim = [("insert", r) for r in sorted(w1, key=lambda r: r["k"]) + w2]
    fl = [("insert", r) for r in w1 + w2]
    assert "window-order" in rules.classify_ops(fl, sim, None, True)[1]
    check(rules.classify_ops([("insert", r) for r in w2 + w1], sim, None, True), None)
    # retract-pair (Kafka): a tombstone right before an update of that key.
    k1 = (rules.canon(1),)
    want = [(k1, row(1, "11")), (k1, row(1, "12")), (k1, None), (k1, row(1, "22"))]
    fl = [(k1, row(1, "11.00")), (k1, None), (k1, row(1, "12")), (k1, None), (k1, row(1, "22"))]
    assert "retract-pair" in rules.classify(fl, want, keyed=True, window=False)[1]
    # an upsert topic whose sink gets UPDATE_BEFOREs: an update is its key's tombstone, then its row.
    ops = [("insert", row(1, "1")), ("update", row(1, "2")), ("delete", row(1, "2"))]
    check(rules.upsert_records(ops, key), [(k1, row(1, "1")), (k1, row(1, "2")), (k1, None)])
    check(rules.upsert_records(ops, key, True), [(k1, row(1, "1")), (k1, None), (k1, row(1, "2")), (k1, None)])
    # a tombstone that is not followed by the update stays a difference.
    check(rules.classify([(k1, row(1, "11")), (k1, None)], want[:2], keyed=True, window=False), None)
    # debezium-json (a model without key): an update is the old row going, then the new one.
    g = lambda n: {"n": n}  # noqa: E731
    sim = [("insert", g(1)), ("update", g(2)), ("delete", g(2))]
    check(rules.changelog_records(sim), [("c", g(1)), ("d", g(1)), ("c", g(2)), ("d", g(2))])
    check(rules.classify_changelog([("c", g(1)), ("d", g(1)), ("c", g(2)), ("d", g(2))], sim)[0], "EXACT")
    # noop-update: Flink writes no pair for an update that changes nothing...
    sim = [("insert", g(1)), ("update", g(1)), ("update", g(2))]
    assert "noop-update" in rules.classify_changelog([("c", g(1)), ("d", g(1)), ("c", g(2))], sim)[1]
    # ...but a missing half of a real update, or a lost row, is a difference.
    check(rules.classify_changelog([("c", g(1)), ("c", g(2))], sim), None)
    check(rules.classify_changelog([("c", g(1)), ("d", g(1))], sim), None)
    # source-order: a model over several sources; an append output is the same rows in any order...
    a, b = {"id": 1, "region": "eu"}, {"id": 2, "region": "us"}
    assert "source-order" in rules.source_order_ops([("insert", b), ("insert", a)], [("insert", a), ("insert", b)], None)[1]
    check(rules.source_order_ops([("insert", b), ("insert", b)], [("insert", a), ("insert", b)], None), None)
    # ...an upsert output ends in the same final table, and a different one is a difference.
    sim = [("insert", row(1, "1")), ("insert", row(2, "1")), ("update", row(1, "2"))]
    fl = [("insert", row(1, "1")), ("update", row(1, "2")), ("insert", row(2, "1"))]
    assert "source-order" in rules.source_order_ops(fl, sim, key)[1]
    check(rules.source_order_ops(fl[:2], sim, key), None)
    want = [(k1, row(1, "1")), ((rules.canon(2),), row(2, "1")), (k1, row(1, "2"))]
    assert "source-order" in rules.source_order_records([want[0], want[2], want[1]], want, keyed=True)[1]
    check(rules.source_order_records(want[:2], want, keyed=True), None)
    # source-order on a debezium-json topic: other rows on the way, the same rows standing.
    sim = [("insert", {"n": 1}), ("update", {"n": 2})]
    fl = [("c", {"n": 7}), ("d", {"n": 7}), ("c", {"n": 2})]
    assert "source-order" in rules.source_order_changelog(fl, sim)[1]
    check(rules.source_order_changelog([("c", {"n": 1})], sim), None)
    print("rules: ok")


if __name__ == "__main__":
    main()
