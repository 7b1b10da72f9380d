#!/usr/bin/env bash
# `streamform watch` latency on the generated 10,000-model project: from a
# file write to the end of the reprint (see tools/bench_watch.py).
#
# usage: tools/bench_watch.sh      (from anywhere; needs python3)
# env:   GEN_SYNTH=path/to/gen_synth.py  when ../shared/tools/gen_synth.py is absent
#        MODELS=10000  EDITS=30  DEBOUNCE_MS=30
set -euo pipefail
cd "$(dirname "$0")/.."

GEN="${GEN_SYNTH:-../shared/tools/gen_synth.py}"
MODELS="${MODELS:-10000}"
EDITS="${EDITS:-30}"
DEBOUNCE_MS="${DEBOUNCE_MS:-30}"
dir="target/bench/synth_$MODELS"
if [ ! -f "$dir/streamform.yml" ] || [ "$(ls "$dir/models" | wc -l)" != "$MODELS" ]; then
  if [ ! -f "$GEN" ]; then
    echo "error: no project generator at $GEN; set GEN_SYNTH=path/to/gen_synth.py" >&2
    exit 2
  fi
  mkdir -p target/bench
  python3 "$GEN" "$MODELS" "$dir" >/dev/null
fi
cargo build --release -q -p streamform-cli
python3 tools/bench_watch.py target/release/streamform "$dir" "$EDITS" "$DEBOUNCE_MS"
