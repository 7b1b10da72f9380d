#!/usr/bin/env bash
# Every restore probe behind docs/upgrades.md's table "What Flink does with
# each join, interval join, deduplication, Top-N and union change": one
# restore_probe.py run per model of a plan pair (its v1's savepoint restored
# into the named versions). About 20 minutes; `just restore-probes`. Fails
# when a change `plan` calls SAFE or COMPATIBLE (or deploys as an upgrade)
# does not keep its state on Flink.
#   RESTORE_PROBES=fast   only the subset run.sh runs (a join key change, a renamed
#                         column above a join, a reworded temporal join)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${STREAMFORM_FLINK_VENV:-$HOME/.cache/streamform/flink-venv-2.3.0}/bin/python"
export STREAMFORM="${STREAMFORM:-$root/target/release/streamform}"
probes=(
  "join:keys v1 v2" "join:stored v2" "join:ttl v2" "join:cond v2" "join:swapped v2"
  "join_restore:off v1 v2" "join_restore:on v2" "join_restore:renamed v1 v2"
  "interval_join:bound v1 v2" "interval_join:regular v2" "interval_join:reworded v2" "interval_join:sides v2"
  "topn:partition v1 v2" "topn:order v2" "topn:n_up v2" "topn:n_down v2" "topn:top1_to_n v2"
  "topn:stored v2" "topn:keep v1 v2" "topn:reformat v2" "topn_retention:ret v1 v2"
  "union:all_orders v1 v2" "union:regions v2" "union_hint:regions v2"
  "outer_join:to_left v2" "outer_join:mirrored v2" "outer_join:reworded v1 v2"
  "join_unique:region_tiers v1 v2" "pruned_calls:reader v1 v2"
  "temporal_join:keyed v1 v2" "temporal_join:stored v2" "temporal_join:reworded v2"
  "topn_updates:strategy v1 v2" "topn_updates:n_up v2" "topn_updates:top1_to_n v2"
)
[ "${RESTORE_PROBES:-all}" = fast ] && probes=("join:keys v1 v2" "join_restore:renamed v2" "temporal_join:reworded v2")
run='rc=0; for p in "${@:2}"; do echo "== restore_probe.py $p"; "$1" "'"$here"'/restore_probe.py" $p || rc=1; done; exit $rc'
if [[ -n "${FLINK_GATEWAY:-}" && -n "${REALPARTS_DIR:-}" ]]; then
  exec bash -c "$run" _ "$py" "${probes[@]}"
fi
exec "$root/tools/realparts/with-parts.sh" bash -c "$run" _ "$py" "${probes[@]}"
