#!/usr/bin/env bash
# with-parts.sh CMD [ARGS...]: installs (cached, idempotent), starts the real
# parts (up.sh), runs CMD with the parts' env exported (KAFKA_BOOTSTRAP,
# FLINK_REST, FLINK_GATEWAY, FLINK_SAVEPOINT_DIR, ... see README), then always
# stops them (down.sh, also on failure or Ctrl-C) and exits with CMD's code.
#   REALPARTS_SKIP_INSTALL=1  skip install.sh (e.g. CI ran it in its own step)
#   REALPARTS_SAVE_LOGS=DIR   keep a copy of the parts' logs there (down.sh)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
[ "$#" -gt 0 ] || die "usage: with-parts.sh CMD [ARGS...]"

if [ "${REALPARTS_SKIP_INSTALL:-0}" != 1 ]; then
    "$here/install.sh"
fi

stopped=0
stop_parts() {
    [ "$stopped" = 1 ] && return 0
    stopped=1
    "$here/down.sh" || log "down.sh failed"
}
trap stop_parts EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$here/up.sh"
set -a
# shellcheck disable=SC1091
. "$STATE_DIR/env"
set +a

rc=0
"$@" || rc=$?
if [ "$rc" -ne 0 ] && [ "${REALPARTS_QUIET:-0}" != 1 ]; then
    log "command exited with $rc; the last lines of the parts' logs follow (REALPARTS_SAVE_LOGS=DIR keeps them whole)"
    for f in "$STATE_DIR"/logs/*.log "$STATE_DIR"/logs/kafka.out; do
        [ -s "$f" ] || continue
        echo "---- $f ----" >&2
        tail -n 25 "$f" >&2
    done
fi
stop_parts
exit "$rc"
