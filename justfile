# Streamform tasks. `just` is optional: every recipe is a plain command.

# Run the whole test suite.
test:
    cargo test --workspace

# Fuzz one target (sql, structured, graph, config, fixture, jsonl, manifest, deploy, lsp)
# with cargo-fuzz for SECONDS; see tools/fuzz.sh. `just test` replays the
# regression inputs of every target without it.
fuzz TARGET SECONDS="300":
    tools/fuzz.sh {{TARGET}} {{SECONDS}}

# Line and region coverage of Streamform's sources reached by one target's
# corpus; see tools/fuzz-coverage.sh.
fuzz-coverage TARGET:
    tools/fuzz-coverage.sh {{TARGET}}

# Rewrite every expect!/expect_file! snapshot from the current outputs.
bless:
    UPDATE_EXPECT=1 cargo test --workspace

# Cold and incremental timings on synthetic 1k and 10k model projects.
bench:
    tools/bench.sh

# Replay the reference corpus (../shared/reference/corpus) against the release binary.
replay *ARGS:
    #!/usr/bin/env bash
    set -euo pipefail
    corpus="${CORPUS:-../shared/reference/corpus}"
    if [ ! -f "$corpus/replay.py" ]; then echo "no corpus at $corpus (set CORPUS=DIR)"; exit 0; fi
    cargo build --release -q -p streamform-cli
    python3 "$corpus/replay.py" --bin "$PWD/target/release/streamform" {{ARGS}}

# `test` on one 200,000-event fixture (generated): median, p90, peak RSS.
bench-test:
    tools/bench-test.sh

# Watch latency on a 10,000-model project: file write to end of reprint.
bench-watch:
    tools/bench_watch.sh

# Language server latency on a 10,000-model project: keystroke to diagnostics, hover, completion.
bench-lsp:
    tools/bench_lsp.sh

# Simulator throughput on 10M generated orders (100k customers) beside a hand-written HashMap loop.
bench-sim:
    tools/bench-sim.sh

# Run every testdata fixture through the generated Flink SQL on real Flink 2.3
# and compare with the simulator (creates a cached venv on first use).
conformance *ARGS:
    tools/conformance/conformance.sh {{ARGS}}

# Restore real savepoints on Flink for each kind of join, interval join,
# deduplication, Top-N and union change (docs/upgrades.md's table; ~15 min).
restore-probes:
    tools/deploy-e2e/restore_probes.sh

# `plan --target` and `plan --out` decide alike on every plan pair of
# testdata/plan/ (or the named ones), v1 applied on the real parts (~15 min).
plan-agreement *CASES:
    cargo build --release -q -p streamform-cli
    tools/realparts/with-parts.sh "${STREAMFORM_FLINK_VENV:-$HOME/.cache/streamform/flink-venv-2.3.0}/bin/python" tools/deploy-e2e/agreement.py {{CASES}}
