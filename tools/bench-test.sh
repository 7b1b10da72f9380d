#!/usr/bin/env bash
# `test` on one fixture of 200,000 events over 1,000 keys (the reference
# model, SUM(amount) by customer_id; the fixture file is ~20 MB): median
# and p90 wall time and peak RSS, for the text report and for --json, and
# for the same fixture with its first expected row wrong (the failing
# report prints every row of the changelog).
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
failing="${dir}_failing"
if [ ! -f "$failing/tests/big.yml" ]; then
  rm -rf "$failing" && cp -r "$dir" "$failing"
  # The first expected total, one cent off.
  python3 - "$failing/tests/big.yml" <<'PY'
import re, sys
p = sys.argv[1]
text = open(p).read()
head, tail = text.split("\nexpect:\n", 1)
tail = re.sub(r'total_spend: "(\d+)\.(\d+)"', lambda m: 'total_spend: "%s.%s"' % (m[1], str(int(m[2]) + 1).rjust(len(m[2]), "0")[-len(m[2]):]), tail, count=1)
open(p, "w").write(head + "\nexpect:\n" + tail)
PY
fi
python3 tools/measure.py "test, failing    " "$RUNS" target/release/streamform test --project "$failing"
peer="${STREAMFORM_PEER:-$HOME/.cache/streamform/peer-venv/bin/streamform}"
if [ -x "$peer" ]; then
  python3 tools/measure.py "original 0.9.1   " "$RUNS" "$peer" test --project "$dir"
fi
