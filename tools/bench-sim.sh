#!/usr/bin/env bash
# Simulator throughput: customer_metrics (SUM(amount) by customer_id over
# decimal(38,9)) on generated orders, beside a hand-written HashMap loop
# doing the same sums. Reports rows/s (per CPU-second, as the machine may be
# shared) and peak memory; a second, 10× smaller run shows that memory
# follows the distinct keys, not the rows.
#
# usage: tools/bench-sim.sh            (from anywhere; needs only cargo)
# env:   ROWS=10000000 KEYS=100000
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS="${ROWS:-10000000}"
KEYS="${KEYS:-100000}"
cargo build --release -q -p streamform-compiler --example bench_sim
BIN=target/release/examples/bench_sim
sim=$("$BIN" sim "$ROWS" "$KEYS" 2>/dev/null)
loop=$("$BIN" loop "$ROWS" "$KEYS" 2>/dev/null)
small=$("$BIN" sim "$((ROWS / 10))" "$KEYS" 2>/dev/null)
echo "$sim"
echo "$loop"
echo "$small"
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
awk -v s="$(field "$sim" rows_per_sec)" -v l="$(field "$loop" rows_per_sec)" \
    -v m1="$(field "$sim" peak_rss_mb)" -v m2="$(field "$small" peak_rss_mb)" 'BEGIN {
  printf "simulator: %.2f M rows/s; hand-written loop: %.2f M rows/s; ratio %.1fx\n", s / 1e6, l / 1e6, l / s
  printf "peak memory: %.1f MB for all rows, %.1f MB for a tenth of them\n", m1, m2
}'
