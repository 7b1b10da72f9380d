#!/usr/bin/env bash
# The deployment end-to-end suite: builds streamform, then runs e2e.py, the
# fault suite (faults.py), the fast subset of the restore probes
# (restore_probes.sh) and the plan agreement on two plan pairs
# (agreement.py) on the real parts, one cluster for all. Under
# tools/realparts/with-parts.sh (its env exported) it uses the running parts;
# otherwise it starts them for the run and stops them after.
#   DEPLOY_E2E_ONLY=faults   the fault suite alone
#   DEPLOY_E2E_ONLY=probes   the fast restore probes alone
#   DEPLOY_E2E_ONLY=agreement  the plan agreement alone
#   DEPLOY_E2E_ONLY=sinks|join|window|secrets  one part of e2e.py alone (see its docstring)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cargo build --quiet -p streamform-cli --manifest-path "$root/Cargo.toml"
export STREAMFORM="${STREAMFORM:-$root/target/debug/streamform}"
py="${STREAMFORM_FLINK_VENV:-$HOME/.cache/streamform/flink-venv-2.3.0}/bin/python"
e2e='python3 "$1/e2e.py"'
faults='python3 "$1/faults.py"'
probes='RESTORE_PROBES=fast "$1/restore_probes.sh"'
agreement='"$2" "$1/agreement.py" join topn_restore'
case "${DEPLOY_E2E_ONLY:-}" in
  "") suites="$e2e && $faults && $probes && $agreement" ;;
  faults) suites="$faults" ;;
  probes) suites="$probes" ;;
  agreement) suites="$agreement" ;;
  *) suites="$e2e" ;;
esac
if [[ -n "${FLINK_GATEWAY:-}" && -n "${REALPARTS_DIR:-}" ]]; then
  exec bash -c "$suites" _ "$here" "$py"
fi
# ZooKeeper HA, so the fault suite can restart the JobManager (faults.py).
export REALPARTS_HA="${REALPARTS_HA:-zookeeper}"
exec "$root/tools/realparts/with-parts.sh" bash -c "$suites" _ "$here" "$py"
