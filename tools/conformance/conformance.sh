#!/usr/bin/env bash
# Runs the Flink conformance suite on real Apache Flink 2.3 from PyPI.
#   conformance.sh [run.py args]          file mode (tools/conformance/run.py):
#       --only GLOB picks projects (testdata/sim/retract, or retract), --fixture
#       GLOB the fixtures in them (tests/overall.yml, or overall.yml);
#       sources swapped to the filesystem connector, one local JVM; the fast path.
#   conformance.sh --kafka [run.py args]  Kafka mode (kafka_mode.py): the
#       generated script runs unmodified on a real Kafka broker and a Flink
#       session cluster. Uses the parts whose env (KAFKA_BOOTSTRAP, FLINK_REST,
#       FLINK_GATEWAY) is already exported, else starts and stops them with
#       tools/realparts/with-parts.sh. `--only GLOB` picks projects,
#       `--fixture GLOB` (Kafka mode) fixtures by <project>/<fixture> path.
# The venv is cached outside the repository (STREAMFORM_FLINK_VENV, default
# ~/.cache/streamform/flink-venv-2.3.0); creating it downloads ~850 MB once.
# Java 17 must be installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${STREAMFORM_FLINK_VENV:-$HOME/.cache/streamform/flink-venv-2.3.0}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import pyflink" 2>/dev/null; then
    echo "conformance: creating $venv (apache-flink==2.3.0, ~850 MB, once)" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q apache-flink==2.3.0 pyyaml
fi
if [ -z "${JAVA_HOME:-}" ] && command -v java >/dev/null; then
    JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    export JAVA_HOME
fi
"$venv/bin/python" tools/conformance/test_rules.py  # the rules that excuse a difference hold
cargo build --release -q -p streamform-cli
run=("$venv/bin/python" tools/conformance/run.py --bin target/release/streamform "$@")
kafka=0
for arg in "$@"; do [ "$arg" = --kafka ] && kafka=1; done
if [ "$kafka" = 1 ] && [ -z "${KAFKA_BOOTSTRAP:-}${FLINK_GATEWAY:-}" ]; then
    exec tools/realparts/with-parts.sh "${run[@]}"
fi
exec "${run[@]}"
