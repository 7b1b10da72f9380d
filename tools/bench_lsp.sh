#!/usr/bin/env bash
# `streamform lsp` latency on the generated 10,000-model project (see
# tools/bench_lsp.py).
#
# usage: tools/bench_lsp.sh      env: MODELS=10000 KEYSTROKES=60 GEN_SYNTH=path/to/gen_synth.py
set -euo pipefail
cd "$(dirname "$0")/.."
GEN="${GEN_SYNTH:-../shared/tools/gen_synth.py}"
MODELS="${MODELS:-10000}"
dir="target/bench/synth_$MODELS"
if [ ! -f "$dir/streamform.yml" ] || [ "$(ls "$dir/models" | wc -l)" != "$MODELS" ]; then
  [ -f "$GEN" ] || { echo "error: no project generator at $GEN; set GEN_SYNTH=path/to/gen_synth.py" >&2; exit 2; }
  mkdir -p target/bench
  python3 "$GEN" "$MODELS" "$dir" >/dev/null
fi
cargo build --release -q -p streamform-cli
python3 tools/bench_lsp.py target/release/streamform "$dir" "${KEYSTROKES:-60}"
