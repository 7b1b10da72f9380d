#!/usr/bin/env bash
# The deployment end-to-end suite: builds streamform, then runs e2e.py on
# the real parts. Under tools/realparts/with-parts.sh (its env exported) it
# uses the running parts; otherwise it starts them for the run and stops
# them after (one cluster for the whole suite).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cargo build --quiet -p streamform-cli --manifest-path "$root/Cargo.toml"
export STREAMFORM="${STREAMFORM:-$root/target/debug/streamform}"
if [[ -n "${FLINK_GATEWAY:-}" && -n "${REALPARTS_DIR:-}" ]]; then
  exec python3 "$here/e2e.py"
fi
exec "$root/tools/realparts/with-parts.sh" python3 "$here/e2e.py"
