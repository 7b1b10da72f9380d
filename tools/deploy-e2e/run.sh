#!/usr/bin/env bash
# The deployment end-to-end suite: builds streamform, then runs e2e.py and
# the fault suite (faults.py) on the real parts, one cluster for both. Under
# tools/realparts/with-parts.sh (its env exported) it uses the running parts;
# otherwise it starts them for the run and stops them after.
#   DEPLOY_E2E_ONLY=faults   the fault suite alone
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cargo build --quiet -p streamform-cli --manifest-path "$root/Cargo.toml"
export STREAMFORM="${STREAMFORM:-$root/target/debug/streamform}"
suites='python3 "$1/e2e.py" && python3 "$1/faults.py"'
if [[ -n "${FLINK_GATEWAY:-}" && -n "${REALPARTS_DIR:-}" ]]; then
  exec bash -c "$suites" _ "$here"
fi
# ZooKeeper HA, so the fault suite can restart the JobManager (faults.py).
export REALPARTS_HA="${REALPARTS_HA:-zookeeper}"
exec "$root/tools/realparts/with-parts.sh" bash -c "$suites" _ "$here"
