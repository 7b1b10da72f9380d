#!/usr/bin/env bash
# `test` on one fixture of 200,000 events over 1,000 keys (the reference
# model, SUM(amount) by customer_id; the fixture file is ~20 MB): median
# and p90 wall time and peak RSS, for the text report and for --json.
# When the original streamform 0.9.1 is installed (tools/differential
# installs it), it is timed on the same project.
#
# usage: tools/bench-test.sh       env: EVENTS=200000 KEYS=1000 RUNS=5
set -euo pipefail
cd "$(dirname "$0")/.."
EVENTS="${EVENTS:-200000}"
KEYS="${KEYS:-1000}"
RUNS="${RUNS:-5}"
dir="target/bench/fixture_${EVENTS}_${KEYS}"
[ -f "$dir/tests/big.yml" ] || python3 tools/gen_fixture.py "$EVENTS" "$KEYS" "$dir"
cargo build --release -q -p streamform-cli
echo "== test, one fixture of $EVENTS events over $KEYS keys ($(du -h "$dir/tests/big.yml" | cut -f1))"
python3 tools/measure.py "test             " "$RUNS" target/release/streamform test --project "$dir"
python3 tools/measure.py "test --json      " "$RUNS" target/release/streamform test --json --project "$dir"
peer="${STREAMFORM_PEER:-$HOME/.cache/streamform/peer-venv/bin/streamform}"
if [ -x "$peer" ]; then
  python3 tools/measure.py "original 0.9.1   " "$RUNS" "$peer" test --project "$dir"
fi
