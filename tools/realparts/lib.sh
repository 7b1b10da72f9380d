# Sourced by the realparts scripts: versions, cache locations, ports and
# small helpers. Every value can be overridden from the environment.
# shellcheck shell=bash disable=SC2034  # the variables are used by the scripts that source this

REALPARTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# --- versions (the cache is keyed by these) ---------------------------------
FLINK_VERSION="2.3.0"   # the wheel and the gateway jar must match
KAFKA_VERSION="${REALPARTS_KAFKA_VERSION:-4.4.0}"
KAFKA_SCALA="2.13"
# flink-sql-connector-kafka built for Flink 2.x; 5.0.0-2.2 is the newest on
# Maven Central and was verified to load and run on Flink 2.3.0 (README).
KAFKA_CONNECTOR_VERSION="${REALPARTS_KAFKA_CONNECTOR_VERSION:-5.0.0-2.2}"
# log4j-slf4j-impl binds Kafka's slf4j 1.x logging to the log4j-core that
# kafka_2.13 already depends on; keep the two versions equal.
KAFKA_LOG4J_VERSION="${REALPARTS_KAFKA_LOG4J_VERSION:-2.25.5}"
CONFLUENT_KAFKA_VERSION="${REALPARTS_CONFLUENT_KAFKA_VERSION:-2.16.1}"

# --- cache (outside the repository; never committed) -----------------------
STREAMFORM_CACHE="${STREAMFORM_CACHE:-$HOME/.cache/streamform}"
FLINK_VENV="${STREAMFORM_FLINK_VENV:-$STREAMFORM_CACHE/flink-venv-$FLINK_VERSION}"
KAFKA_HOME="$STREAMFORM_CACHE/kafka-$KAFKA_SCALA-$KAFKA_VERSION"
GATEWAY_HOME="$STREAMFORM_CACHE/flink-sql-gateway-$FLINK_VERSION"
CONNECTOR_HOME="$STREAMFORM_CACHE/flink-sql-connector-kafka-$KAFKA_CONNECTOR_VERSION"
CLIENT_VENV="$STREAMFORM_CACHE/kafka-client-venv-$CONFLUENT_KAFKA_VERSION"
REALPARTS_PYTHON="$CLIENT_VENV/bin/python"

# --- run-time state (a temp dir; down.sh removes it) -----------------------
STATE_DIR="${REALPARTS_STATE_DIR:-${TMPDIR:-/tmp}/streamform-realparts-$(id -u)}"

# --- ports: all bound on 127.0.0.1 only ------------------------------------
BIND_HOST="127.0.0.1"
KAFKA_PORT="${REALPARTS_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${REALPARTS_KAFKA_CONTROLLER_PORT:-19093}"
FLINK_REST_PORT="${REALPARTS_FLINK_REST_PORT:-18081}"
FLINK_RPC_PORT="${REALPARTS_FLINK_RPC_PORT:-16123}"
GATEWAY_PORT="${REALPARTS_GATEWAY_PORT:-18083}"
# REALPARTS_HA=zookeeper runs the JobManager with Flink's ZooKeeper high
# availability (a ZooKeeper server from flink-dist, one peer): a restarted
# JobManager then recovers its jobs from their last checkpoint. Off by
# default. The ZooKeeper port defaults to the RPC port + 1, so runs that set
# their own ports do not collide.
HA_MODE="${REALPARTS_HA:-none}"
ZOOKEEPER_PORT="${REALPARTS_ZOOKEEPER_PORT:-$((FLINK_RPC_PORT + 1))}"

# --- sizes -----------------------------------------------------------------
TM_SLOTS="${REALPARTS_TM_SLOTS:-4}"
READY_TIMEOUT="${REALPARTS_READY_TIMEOUT:-120}"   # seconds, per part
STOP_TIMEOUT="${REALPARTS_STOP_TIMEOUT:-20}"      # seconds, per process
# Fast start and a small footprint on a 2-core machine.
JVM_SMALL_OPTS="${REALPARTS_JVM_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1}"

pyflink_dir() {
    local d
    for d in "$FLINK_VENV"/lib/python3*/site-packages/pyflink; do
        [ -d "$d/bin" ] && { echo "$d"; return 0; }
    done
    return 1
}

java_home() {
    if [ -n "${JAVA_HOME:-}" ]; then echo "$JAVA_HOME"; return 0; fi
    command -v java >/dev/null || return 1
    dirname "$(dirname "$(readlink -f "$(command -v java)")")"
}

log() { echo "realparts: $*" >&2; }
die() { echo "realparts: ERROR: $*" >&2; exit 1; }
