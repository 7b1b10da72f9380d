#!/usr/bin/env bash
# Starts the real parts on 127.0.0.1 only, each with a bounded wait for
# readiness, and writes $STATE_DIR/env (KEY=value lines) for the tests:
#   kafka        single-node KRaft broker+controller, data in $STATE_DIR/kafka
#   jobmanager   Flink session cluster JobManager (REST /overview)
#   taskmanager  one TaskManager with $TM_SLOTS slots
#   sql-gateway  Flink SQL Gateway, REST endpoint (/v2/info)
#   zookeeper    only with REALPARTS_HA=zookeeper: the JobManager's HA store
# A part that does not come up fails with its name and the tail of its log;
# everything already started is then stopped again (down.sh).
# Run install.sh first (with-parts.sh does both).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t0=$(date +%s.%N)

pyflink="$(pyflink_dir)" || die "Flink is not installed at $FLINK_VENV: run tools/realparts/install.sh"
for d in "$GATEWAY_HOME" "$CONNECTOR_HOME" "$KAFKA_HOME" "$CLIENT_VENV"; do
    [ -f "$d/.complete" ] || die "$d is not installed: run tools/realparts/install.sh"
done
JAVA_HOME="$(java_home)" || die "java not found"
export JAVA_HOME
JAVA="$JAVA_HOME/bin/java"

MARKER="$STATE_DIR/.streamform-realparts"
PIDS="$STATE_DIR/pids"
LOGS="$STATE_DIR/logs"

# --- refuse to start twice; clear a stale state dir ------------------------
if [ -e "$STATE_DIR" ]; then
    [ -f "$MARKER" ] || die "$STATE_DIR exists and is not a realparts state dir; set REALPARTS_STATE_DIR"
    for f in "$PIDS"/*.pid; do
        [ -f "$f" ] || continue
        if kill -0 "$(cat "$f")" 2>/dev/null; then
            die "already up ($(basename "$f" .pid) is running, state $STATE_DIR): run tools/realparts/down.sh first"
        fi
    done
    rm -rf "$STATE_DIR"
fi

# --- every port must be free before anything starts ------------------------
busy="$(python3 - "$BIND_HOST" \
    "kafka=$KAFKA_PORT" "kafka-controller=$KAFKA_CONTROLLER_PORT" \
    "flink-rest=$FLINK_REST_PORT" "flink-rpc=$FLINK_RPC_PORT" "sql-gateway=$GATEWAY_PORT" \
    $( [ "$HA_MODE" = zookeeper ] && echo "zookeeper=$ZOOKEEPER_PORT" ) <<'EOF'
import socket, sys
host = sys.argv[1]
for arg in sys.argv[2:]:
    name, port = arg.split("=")
    s = socket.socket()
    # like the servers: TIME_WAIT leftovers do not block, a listener does
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((host, int(port)))
    except OSError as e:
        print(f"{name} port {port}: {e.strerror}")
    finally:
        s.close()
EOF
)"
[ -z "$busy" ] || die "ports in use on $BIND_HOST (override with REALPARTS_*_PORT):
$busy"

mkdir -p "$PIDS" "$LOGS" "$STATE_DIR/tmp" "$STATE_DIR/savepoints" "$STATE_DIR/checkpoints"
touch "$MARKER"

# start_bg NAME CMD...: runs CMD detached in a session of its own (so its
# pid is also its process group's id), no stdin, output in $LOGS/NAME.out,
# and records the pid. Every launcher used here ends by exec'ing its JVM, so
# the recorded pid becomes the JVM's. STREAMFORM_REALPARTS_OWNER in its
# environment lets down.sh tell our processes from a reused pid.
start_bg() {
    local name="$1"; shift
    STREAMFORM_REALPARTS_OWNER="$STATE_DIR" setsid nohup "$@" >"$LOGS/$name.out" 2>&1 </dev/null &
    echo $! >"$PIDS/$name.pid"
}

failed() {  # failed NAME REASON LOG...
    local name="$1" reason="$2"; shift 2
    echo "realparts: ERROR: $name did not come up: $reason" >&2
    local f
    for f in "$@"; do
        [ -s "$f" ] || continue
        echo "---- last lines of $f ----" >&2
        tail -n 40 "$f" >&2
    done
    echo "----" >&2
    "$REALPARTS_DIR/down.sh" >&2 || true
    exit 1
}

# wait_for NAME PIDNAME CHECK-CMD...: polls CHECK-CMD until it succeeds, the
# process dies, or READY_TIMEOUT passes.
wait_for() {
    local name="$1" pidname="$2"; shift 2
    local deadline=$(( $(date +%s) + READY_TIMEOUT )) pid
    pid="$(cat "$PIDS/$pidname.pid")"
    until "$@" >/dev/null 2>&1; do
        # shellcheck disable=SC2046  # logs_of prints paths without spaces, one a word
        kill -0 "$pid" 2>/dev/null || failed "$name" "process $pid exited" $(logs_of "$pidname")
        # shellcheck disable=SC2046
        [ "$(date +%s)" -lt "$deadline" ] || failed "$name" "not ready after ${READY_TIMEOUT}s" $(logs_of "$pidname")
        sleep 0.5
    done
    log "$name ready ($(elapsed)s)"
}
logs_of() {  # the files worth showing when part $1 fails
    local svc=""
    case "$1" in
        jobmanager) svc=standalonesession ;;
        zookeeper) svc=zookeeper ;;
        taskmanager) svc=taskexecutor ;;
        sql-gateway) svc=sql-gateway ;;
    esac
    ls "$LOGS/$1.out" 2>/dev/null || true
    [ -z "$svc" ] || ls "$LOGS"/flink-realparts-"$svc"-*.log 2>/dev/null || true
}
elapsed() { python3 -c "import time; print(round(time.time() - $t0, 1))"; }

http_ok() {  # http_ok URL [PYTHON-EXPR over j, the decoded JSON]
    python3 - "$1" "${2:-True}" <<'EOF'
import json, sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=3) as r:
    j = json.load(r)
sys.exit(0 if eval(sys.argv[2], {}, {"j": j}) else 1)
EOF
}

# --- Kafka ------------------------------------------------------------------
kdir="$STATE_DIR/kafka"
mkdir -p "$kdir/data"
cat >"$kdir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$BIND_HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$BIND_HOST:$KAFKA_PORT,CONTROLLER://$BIND_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$BIND_HOST:$KAFKA_PORT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$kdir/data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
EOF
cat >"$kdir/log4j2.properties" <<'EOF'
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.state.name = state.change.logger
logger.state.level = WARN
EOF
cluster_id="$(python3 -c '
import base64, uuid
while True:
    s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    if not s.startswith("-"):
        print(s); break')"
# shellcheck disable=SC2206  # JVM_SMALL_OPTS is a list of flags
kafka_java=("$JAVA" -Xms128m -Xmx512m $JVM_SMALL_OPTS -Djava.awt.headless=true
    -Djava.io.tmpdir="$STATE_DIR/tmp" -Dlog4j2.configurationFile="file:$kdir/log4j2.properties"
    -cp "$KAFKA_HOME/jars/*")
if ! "${kafka_java[@]}" kafka.tools.StorageTool format -t "$cluster_id" \
        -c "$kdir/server.properties" >"$LOGS/kafka-format.out" 2>&1; then
    failed kafka "storage format failed" "$LOGS/kafka-format.out"
fi
start_bg kafka "${kafka_java[@]}" kafka.Kafka "$kdir/server.properties"

# --- Flink: a FLINK_HOME of our own over the wheel's bin/ -------------------
# lib/ and opt/ are symlinks to the wheel's jars plus the connector and the
# gateway jar; conf/ is generated. The venv itself is not modified.
fdir="$STATE_DIR/flink"
mkdir -p "$fdir/conf" "$fdir/lib" "$fdir/opt" "$fdir/pid" "$fdir/tmp" "$fdir/web"
ln -s "$pyflink"/lib/*.jar "$CONNECTOR_HOME"/jars/*.jar "$fdir/lib/"
ln -s "$pyflink"/opt/*.jar "$GATEWAY_HOME"/jars/*.jar "$fdir/opt/"
for f in log4j-console.properties log4j-cli.properties log4j.properties log4j-session.properties \
         logback-console.xml logback.xml logback-session.xml; do
    [ -f "$pyflink/conf/$f" ] && cp "$pyflink/conf/$f" "$fdir/conf/"
done
# the wheel's --add-opens/--add-exports list that Flink needs on Java 17
opens="$(grep -m 1 '^ *all: ' "$pyflink/conf/config.yaml" | sed 's/^ *all: *//')"
[ -n "$opens" ] || die "no env.java.opts.all in $pyflink/conf/config.yaml"
cat >"$fdir/conf/config.yaml" <<EOF
# generated by tools/realparts/up.sh
env.java.opts.all: "$opens $JVM_SMALL_OPTS -Djava.io.tmpdir=$fdir/tmp -Dconsole.log.level=OFF"
env.java.opts.sql-gateway: "-Xms128m -Xmx768m"
jobmanager.bind-host: $BIND_HOST
jobmanager.rpc.address: $BIND_HOST
jobmanager.rpc.port: $FLINK_RPC_PORT
jobmanager.memory.process.size: 1024m
jobmanager.execution.failover-strategy: region
taskmanager.bind-host: $BIND_HOST
taskmanager.host: $BIND_HOST
taskmanager.numberOfTaskSlots: $TM_SLOTS
taskmanager.memory.process.size: 1728m
taskmanager.memory.managed.fraction: 0.1
parallelism.default: 1
rest.address: $BIND_HOST
rest.bind-address: $BIND_HOST
rest.port: $FLINK_REST_PORT
io.tmp.dirs: $fdir/tmp
web.tmpdir: $fdir/web
execution.checkpointing.dir: file://$STATE_DIR/checkpoints
execution.checkpointing.savepoint-dir: file://$STATE_DIR/savepoints
sql-gateway.endpoint.rest.address: $BIND_HOST
sql-gateway.endpoint.rest.bind-address: $BIND_HOST
sql-gateway.endpoint.rest.port: $GATEWAY_PORT
EOF
case "$HA_MODE" in
    none) ;;
    zookeeper)
        # One ZooKeeper peer; a short session timeout so a killed
        # JobManager's leadership lapses in seconds, not Flink's 60 s.
        cat >>"$fdir/conf/config.yaml" <<EOF
high-availability.type: zookeeper
high-availability.storageDir: file://$STATE_DIR/ha
high-availability.zookeeper.quorum: $BIND_HOST:$ZOOKEEPER_PORT
high-availability.zookeeper.client.session-timeout: 6000
zookeeper.heap.mb: 96
EOF
        mkdir -p "$STATE_DIR/zookeeper" "$STATE_DIR/ha"
        cat >"$fdir/conf/zoo.cfg" <<EOF
tickTime=1000
initLimit=10
syncLimit=5
dataDir=$STATE_DIR/zookeeper
clientPort=$ZOOKEEPER_PORT
clientPortAddress=$BIND_HOST
admin.enableServer=false
4lw.commands.whitelist=ruok
EOF
        ;;
    *) die "REALPARTS_HA=$HA_MODE: only none or zookeeper" ;;
esac
printf '%s\n' "$BIND_HOST" >"$fdir/conf/masters"
printf '%s\n' "$BIND_HOST" >"$fdir/conf/workers"

export FLINK_CONF_DIR="$fdir/conf" FLINK_LIB_DIR="$fdir/lib" FLINK_OPT_DIR="$fdir/opt"
export FLINK_LOG_DIR="$LOGS" FLINK_PID_DIR="$fdir/pid" FLINK_IDENT_STRING="realparts"
unset FLINK_ENV_JAVA_OPTS FLINK_ENV_JAVA_OPTS_SQL_GATEWAY JVM_ARGS
if [ "$HA_MODE" = zookeeper ]; then
    start_bg zookeeper "$pyflink/bin/zookeeper.sh" start-foreground 1
    wait_for zookeeper zookeeper python3 -c "import socket,sys; s=socket.create_connection(('$BIND_HOST', $ZOOKEEPER_PORT), 2); s.sendall(b'ruok'); sys.exit(0 if s.recv(4) == b'imok' else 1)"
fi
start_bg jobmanager "$pyflink/bin/jobmanager.sh" start-foreground
start_bg taskmanager "$pyflink/bin/taskmanager.sh" start-foreground
start_bg sql-gateway "$pyflink/bin/sql-gateway.sh" start-foreground

# --- readiness, each bounded ------------------------------------------------
wait_for kafka kafka "$REALPARTS_PYTHON" "$REALPARTS_DIR/kafka_util.py" \
    --bootstrap "$BIND_HOST:$KAFKA_PORT" wait-ready --timeout 3
FLINK_REST="http://$BIND_HOST:$FLINK_REST_PORT"
GATEWAY="http://$BIND_HOST:$GATEWAY_PORT"
wait_for jobmanager jobmanager http_ok "$FLINK_REST/overview"
wait_for taskmanager taskmanager http_ok "$FLINK_REST/overview" "j['taskmanagers'] >= 1 and j['slots-total'] >= $TM_SLOTS"
wait_for sql-gateway sql-gateway http_ok "$GATEWAY/v2/info"

cat >"$STATE_DIR/env" <<EOF
KAFKA_BOOTSTRAP=$BIND_HOST:$KAFKA_PORT
FLINK_REST=$FLINK_REST
FLINK_GATEWAY=$GATEWAY
FLINK_SAVEPOINT_DIR=$STATE_DIR/savepoints
FLINK_CHECKPOINT_DIR=$STATE_DIR/checkpoints
FLINK_VERSION=$FLINK_VERSION
FLINK_KAFKA_CONNECTOR_VERSION=$KAFKA_CONNECTOR_VERSION
KAFKA_VERSION=$KAFKA_VERSION
REALPARTS_STATE_DIR=$STATE_DIR
REALPARTS_LOG_DIR=$LOGS
REALPARTS_FLINK_BIN=$pyflink/bin
REALPARTS_FLINK_CONF_DIR=$fdir/conf
REALPARTS_FLINK_LIB_DIR=$fdir/lib
REALPARTS_FLINK_OPT_DIR=$fdir/opt
REALPARTS_PYTHON=$REALPARTS_PYTHON
REALPARTS_DIR=$REALPARTS_DIR
REALPARTS_HA=$HA_MODE
EOF
log "up in $(elapsed)s; env in $STATE_DIR/env"
