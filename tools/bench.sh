#!/usr/bin/env bash
# Benchmarks: cold `check` and `inspect-plan --json` on synthetic projects of
# 1,000 and 10,000 models (median and p90 wall time, peak RSS), the in-process incremental
# re-check after a one-model edit, and growth from 1k to 10k.
#
# usage: tools/bench.sh            (from the repository root; needs python3)
# env:   GEN_SYNTH=path/to/gen_synth.py  when ../shared/tools/gen_synth.py is absent
#        SIZES="1000 10000"  RUNS=3
set -euo pipefail
cd "$(dirname "$0")/.."

GEN="${GEN_SYNTH:-../shared/tools/gen_synth.py}"
if [ ! -f "$GEN" ]; then
  echo "error: no project generator at $GEN; set GEN_SYNTH=path/to/gen_synth.py" >&2
  exit 2
fi
SIZES="${SIZES:-1000 10000}"
RUNS="${RUNS:-5}"
OUT=target/bench
mkdir -p "$OUT"

cargo build --release -q -p streamform-cli -p streamform-compiler --example bench_incremental
BIN=target/release/streamform
INC=target/release/examples/bench_incremental

# `check` exists when it accepts --help and is not a stub that exits 2.
have_check=0
if "$BIN" check --project "testdata/projects/reference" >/dev/null 2>&1; then have_check=1; fi

# measure LABEL CMD... : median and p90 wall time and peak RSS over RUNS runs.
measure() {
  local label="$1"; shift
  python3 tools/measure.py "$label" "$RUNS" "$@"
}

declare -A WALL
for n in $SIZES; do
  dir="$OUT/synth_$n"
  [ -f "$dir/streamform.yml" ] && [ "$(ls "$dir/models" | wc -l)" = "$n" ] || python3 "$GEN" "$n" "$dir" >/dev/null
  echo "== $n models ($dir)"
  if [ "$have_check" = 1 ]; then
    measure "check                   " "$BIN" check --project "$dir"
  else
    echo "check                    (not implemented yet; skipped)"
  fi
  line=$(measure "inspect-plan --json     " "$BIN" inspect-plan --json --project "$dir")
  echo "$line"
  WALL[$n]=$(echo "$line" | sed -E 's/.*median ([0-9.]+)s.*/\1/')
  "$INC" "$dir" 21 | sed 's/^/in-process: /'
done

set -- $SIZES
if [ $# -ge 2 ]; then
  python3 -c "
a, b = $1, ${!#}
wa, wb = ${WALL[$1]}, ${WALL[${!#}]}
print(f'growth {a} -> {b} models: x{b/a:.0f} models, x{wb/wa:.1f} inspect-plan --json wall time')"
fi
