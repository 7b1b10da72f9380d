#!/usr/bin/env bash
# Runs one fuzz target (compiler/fuzz/fuzz_targets/TARGET.rs, or for `lsp`
# cli/fuzz/fuzz_targets/lsp.rs) with cargo-fuzz for SECONDS, its corpus
# seeded from testdata/ and the regression inputs.
#   tools/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags…]
# Targets: sql structured graph config fixture jsonl manifest deploy savepoint lsp.
# A crash is saved under <fuzz dir>/artifacts/TARGET/. The input running
# when the process died is also in compiler/fuzz/last-input: a stack
# overflow kills the process before libFuzzer can save it (the input is
# written to /dev/shm while the target runs, as a file per input on disk
# costs a tenth of the executions), and a memory fault also leaves ./core
# for gdb. Minimize it (`cargo fuzz tmin`), fix the cause, and add it to
# <fuzz dir>/regressions/TARGET/, which `cargo test` replays.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: tools/fuzz.sh TARGET [SECONDS]}"
seconds="${2:-300}"
shift $(( $# < 2 ? $# : 2 ))
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
fuzz=compiler/fuzz
[ "$target" = lsp ] && fuzz=cli/fuzz
corpus="$fuzz/corpus/$target"
mkdir -p "$corpus"
seed() { # copies each named file into the corpus, named by its content
    while read -r f; do cp "$f" "$corpus/seed-$(sha1sum "$f" | cut -c1-16)"; done
}
case "$target" in
    sql) find testdata -path '*/models/*.sql' | seed ;;
    config)
        find testdata -name streamform.yml | while read -r f; do
            d=$(dirname "$f"); out="$corpus/seed-$(echo "$d" | sha1sum | cut -c1-16)"
            { cat "$f"; printf '\0'; cat "$d/sources.yml" 2>/dev/null || true; } > "$out"
        done ;;
    fixture) find testdata -path '*/tests/*.yml' | seed ;;
    jsonl) find testdata -name '*.jsonl' | seed ;;
    manifest) find testdata -name plan.json -o -name manifest.json | seed ;;
    # Deploy plans (`plan --out`), applied records and journal entries too.
    deploy) find testdata -name plan.json -o -name manifest.json -o -path 'testdata/deploy/*.json' | seed ;;
    structured | graph | savepoint | lsp) ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac
cp "$fuzz/regressions/$target"/* "$corpus/" 2>/dev/null || true
# libFuzzer's flags are nightly-only; stable takes them with RUSTC_BOOTSTRAP.
# No sanitizer: the compiler is safe Rust; we look for panics, stack
# overflows, hangs and runaway memory.
keep="$PWD/$fuzz/last-input"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    keep=$(mktemp /dev/shm/streamform-fuzz-XXXXXX)
    # Also when the run is interrupted: the input it was running is kept.
    trap 'status=$?; [ "$status" = 0 ] || cp "$keep" "$fuzz/last-input"; rm -f "$keep"; exit "$status"' EXIT
fi
export RUSTC_BOOTSTRAP=1 STREAMFORM_FUZZ_KEEP="$keep"
# A memory fault (a stack overflow among them: without the Rust runtime's
# handler it prints nothing) leaves a core, ./core, with every thread's
# stack; libFuzzer's own handler would print only "deadly signal". A panic
# aborts and is saved as usual.
ulimit -c unlimited 2>/dev/null || true
nosig="-handle_segv=0 -handle_bus=0 -handle_ill=0 -handle_fpe=0"
# -reload=0: no other process adds to this corpus, and rereading its
# thousands of files took a tenth of the time.
# shellcheck disable=SC2086
cargo fuzz run --fuzz-dir "$fuzz" --sanitizer none "$target" "$corpus" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=16384 -reload=0 $nosig "$@"
