#!/usr/bin/env python3
"""A project with one large fixture, for `just bench-test`.

The reference model (SUM(amount) by customer_id) and one fixture of EVENTS
orders over KEYS customers, with every expected changelog row: an insert
for a customer's first order, then an update with the running total.

usage: tools/gen_fixture.py EVENTS KEYS DIR   (deterministic: seed 7)
"""
import os
import random
import sys
from decimal import Decimal


def main():
    events, keys, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(7)
    os.makedirs(os.path.join(out, "models"), exist_ok=True)
    os.makedirs(os.path.join(out, "tests"), exist_ok=True)
    files = {
        "streamform.yml": "name: bench_test\nversion: 1\nmodels:\n  customer_metrics:\n"
        "    materialized: upsert\n    key: [customer_id]\n"
        "    sink: {connector: kafka, topic: customer-metrics}\n",
        "sources.yml": "sources:\n  orders:\n    connector: kafka\n    topic: orders\n"
        "    schema:\n      amount: decimal(38,9)\n      customer_id: int64\n",
        "models/customer_metrics.sql": "SELECT customer_id, SUM(amount) AS total_spend\n"
        "FROM source('orders')\nGROUP BY customer_id\n",
    }
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    given, expect, totals = [], [], {}
    for _ in range(events):
        key = rng.randrange(keys)
        amount = Decimal(rng.randrange(1, 100000)) / 100
        given.append(f'  - {{customer_id: {key}, amount: "{amount}"}}\n')
        op = "update" if key in totals else "insert"
        totals[key] = totals.get(key, Decimal(0)) + amount
        expect.append(f'  - {{op: {op}, customer_id: {key}, total_spend: "{totals[key]}"}}\n')
    with open(os.path.join(out, "tests", "big.yml"), "w") as f:
        f.write("model: customer_metrics\ngiven:\n")
        f.writelines(given)
        f.write("expect:\n")
        f.writelines(expect)


if __name__ == "__main__":
    main()
