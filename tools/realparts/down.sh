#!/usr/bin/env bash
# Stops exactly what up.sh started: the pids it recorded in $STATE_DIR/pids,
# each checked to still be our process (its environment names this state
# dir), with its process group (a launcher still starting may have a helper
# JVM as a child), SIGTERM first and SIGKILL after STOP_TIMEOUT seconds. Then removes
# the state dir (logs, Kafka data, savepoints) unless REALPARTS_KEEP_STATE=1;
# REALPARTS_SAVE_LOGS=DIR copies the logs there first. Safe to run twice.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)

MARKER="$STATE_DIR/.streamform-realparts"
if [ ! -f "$MARKER" ]; then
    log "nothing to stop ($STATE_DIR is not a realparts state dir)"
    exit 0
fi

ours() {  # ours PID: alive and started by up.sh for this state dir
    local environ
    kill -0 "$1" 2>/dev/null && [ -r "/proc/$1/environ" ] || return 1
    # no pipe into grep -q: under pipefail tr's SIGPIPE would read as "not ours"
    environ="$(tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null)" || return 1
    grep -qxF -- "STREAMFORM_REALPARTS_OWNER=$STATE_DIR" <<<"$environ"
}
group_of() {  # the target for kill: the pid's process group if it leads one
    local pgid
    pgid="$(ps -o pgid= -p "$1" 2>/dev/null | tr -d ' ')"
    if [ "$pgid" = "$1" ]; then echo "-$1"; else echo "$1"; fi
}

declare -A running=()
for name in sql-gateway taskmanager jobmanager zookeeper kafka; do
    f="$STATE_DIR/pids/$name.pid"
    [ -f "$f" ] || continue
    pid="$(cat "$f")"
    if ours "$pid"; then
        target="$(group_of "$pid")"
        kill -TERM -- "$target" 2>/dev/null || true
        running[$name]="$target"
    fi
done

deadline=$(( $(date +%s) + STOP_TIMEOUT ))
while [ "${#running[@]}" -gt 0 ]; do
    for name in "${!running[@]}"; do
        kill -0 -- "${running[$name]}" 2>/dev/null || unset "running[$name]"
    done
    [ "${#running[@]}" -gt 0 ] || break
    if [ "$(date +%s)" -ge "$deadline" ]; then
        for name in "${!running[@]}"; do
            log "$name (pid ${running[$name]#-}) ignored SIGTERM for ${STOP_TIMEOUT}s: SIGKILL"
            kill -KILL -- "${running[$name]}" 2>/dev/null || true
        done
        sleep 1
        break
    fi
    sleep 0.2
done

if [ -n "${REALPARTS_SAVE_LOGS:-}" ] && [ -d "$STATE_DIR/logs" ]; then
    mkdir -p "$REALPARTS_SAVE_LOGS"
    cp -r "$STATE_DIR/logs/." "$REALPARTS_SAVE_LOGS/"
    log "logs copied to $REALPARTS_SAVE_LOGS"
fi
if [ "${REALPARTS_KEEP_STATE:-0}" = 1 ]; then
    rm -f "$STATE_DIR"/pids/*.pid
    log "stopped in $(( $(date +%s) - t0 ))s; state kept in $STATE_DIR"
else
    rm -rf "$STATE_DIR"
    log "stopped in $(( $(date +%s) - t0 ))s; removed $STATE_DIR"
fi
