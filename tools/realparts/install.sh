#!/usr/bin/env bash
# Installs the real parts into the cache outside the repository
# (~/.cache/streamform/<part>-<version>/), each part once: running it again
# does nothing for a part that is already complete. Nothing lands in the repo.
#   - Flink 2.3.0 (PyPI wheel apache-flink, the venv conformance uses)
#   - the Flink SQL Gateway jar and flink-sql-connector-kafka (Maven Central)
#   - Apache Kafka (kafka_2.13 and its runtime classpath, Maven Central)
#   - a small Python venv with confluent-kafka for the tests' client
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v java >/dev/null || die "java not found (Java 17 is required)"
command -v mvn >/dev/null || die "mvn not found (Maven resolves the jars from Maven Central)"
command -v python3 >/dev/null || die "python3 not found"
mkdir -p "$STREAMFORM_CACHE"

DEP_PLUGIN="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

# mvn_copy DEST TRANSITIVE(true|false) G:A:V...
# Resolves the artifacts through a throwaway pom and copies their jars (and,
# if TRANSITIVE, their runtime dependencies) into DEST/, built in a partial
# directory and moved into place only when complete.
mvn_copy() {
    local dest="$1" transitive="$2"; shift 2
    local partial="$dest.partial.$$" deps="" gav g a v
    rm -rf "$partial"; mkdir -p "$partial/jars"
    for gav in "$@"; do
        IFS=: read -r g a v <<<"$gav"
        deps="$deps<dependency><groupId>$g</groupId><artifactId>$a</artifactId><version>$v</version></dependency>"
    done
    cat >"$partial/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>streamform.realparts</groupId>
  <artifactId>classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>$deps</dependencies>
</project>
EOF
    local excl="true"; [ "$transitive" = true ] && excl="false"
    if ! mvn -B -q -f "$partial/pom.xml" "$DEP_PLUGIN:copy-dependencies" \
            -DincludeScope=runtime -DexcludeTransitive="$excl" \
            -DoutputDirectory="$partial/jars" >"$partial/mvn.log" 2>&1; then
        tail -n 30 "$partial/mvn.log" >&2
        rm -rf "$partial"
        die "maven could not resolve $*"
    fi
    rm -f "$partial/mvn.log"
    printf '%s\n' "$@" >"$partial/.complete"
    rm -rf "$dest"; mv "$partial" "$dest"
}

# 1. Flink from the wheel (shared with tools/conformance/conformance.sh)
if [ -x "$FLINK_VENV/bin/python" ] && "$FLINK_VENV/bin/python" -c "import pyflink" 2>/dev/null; then
    log "flink $FLINK_VERSION: cached at $FLINK_VENV"
else
    log "flink $FLINK_VERSION: creating $FLINK_VENV (apache-flink==$FLINK_VERSION, ~850 MB, once)"
    python3 -m venv "$FLINK_VENV"
    "$FLINK_VENV/bin/pip" install -q "apache-flink==$FLINK_VERSION" pyyaml
fi
pyflink="$(pyflink_dir)" || die "no pyflink/bin in $FLINK_VENV"
[ -f "$pyflink/lib/flink-dist-$FLINK_VERSION.jar" ] \
    || die "$pyflink/lib has no flink-dist-$FLINK_VERSION.jar: the venv holds another Flink"

# 2. the SQL Gateway jar (not in the wheel) for the same Flink version
if [ -f "$GATEWAY_HOME/.complete" ]; then
    log "sql gateway $FLINK_VERSION: cached at $GATEWAY_HOME"
else
    log "sql gateway $FLINK_VERSION: fetching org.apache.flink:flink-sql-gateway:$FLINK_VERSION"
    mvn_copy "$GATEWAY_HOME" false "org.apache.flink:flink-sql-gateway:$FLINK_VERSION"
fi

# 3. the Kafka SQL connector (fat jar, no dependencies)
if [ -f "$CONNECTOR_HOME/.complete" ]; then
    log "kafka connector $KAFKA_CONNECTOR_VERSION: cached at $CONNECTOR_HOME"
else
    log "kafka connector $KAFKA_CONNECTOR_VERSION: fetching org.apache.flink:flink-sql-connector-kafka"
    mvn_copy "$CONNECTOR_HOME" false "org.apache.flink:flink-sql-connector-kafka:$KAFKA_CONNECTOR_VERSION"
fi

# 4. the Kafka broker: kafka_2.13 with its runtime classpath, plus the slf4j
#    binding its logging needs (the binary tarball's libs/ has one too)
if [ -f "$KAFKA_HOME/.complete" ]; then
    log "kafka $KAFKA_VERSION: cached at $KAFKA_HOME"
else
    log "kafka $KAFKA_VERSION: fetching org.apache.kafka:kafka_$KAFKA_SCALA:$KAFKA_VERSION and its runtime dependencies"
    mvn_copy "$KAFKA_HOME" true \
        "org.apache.kafka:kafka_$KAFKA_SCALA:$KAFKA_VERSION" \
        "org.apache.logging.log4j:log4j-slf4j-impl:$KAFKA_LOG4J_VERSION"
fi

# 5. the tests' Kafka client (librdkafka ships inside the wheel)
if [ -f "$CLIENT_VENV/.complete" ] && "$REALPARTS_PYTHON" -c "import confluent_kafka" 2>/dev/null; then
    log "confluent-kafka $CONFLUENT_KAFKA_VERSION: cached at $CLIENT_VENV"
else
    log "confluent-kafka $CONFLUENT_KAFKA_VERSION: creating $CLIENT_VENV"
    rm -rf "$CLIENT_VENV"
    python3 -m venv "$CLIENT_VENV"
    "$CLIENT_VENV/bin/pip" install -q "confluent-kafka==$CONFLUENT_KAFKA_VERSION"
    "$REALPARTS_PYTHON" -c "import confluent_kafka" || die "confluent-kafka does not import from $CLIENT_VENV"
    echo "confluent-kafka==$CONFLUENT_KAFKA_VERSION" >"$CLIENT_VENV/.complete"
fi
log "installed"
