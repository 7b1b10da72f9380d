#!/usr/bin/env bash
# What a fuzz target's corpus reaches: runs every input of
# <fuzz dir>/corpus/TARGET (and its regressions) through a build
# instrumented for source coverage, and prints the line and region
# coverage of each Streamform source file it touches, then the total.
#   tools/fuzz-coverage.sh TARGET
# Targets as in tools/fuzz.sh. Needs rustup's llvm-tools (installed here
# when missing); the report is also written to
# <fuzz dir>/coverage/TARGET/report.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: tools/fuzz-coverage.sh TARGET}"
fuzz=compiler/fuzz
[ "$target" = lsp ] && fuzz=cli/fuzz
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
sysroot="$(rustc --print sysroot)"
host="$(rustc -vV | sed -n 's/^host: //p')"
tools="$sysroot/lib/rustlib/$host/bin"
[ -x "$tools/llvm-cov" ] || rustup component add llvm-tools
corpus="$fuzz/corpus/$target"
mkdir -p "$corpus"
cp "$fuzz/regressions/$target"/* "$corpus/" 2>/dev/null || true
[ -n "$(ls -A "$corpus")" ] || { echo "the $target corpus is empty: run tools/fuzz.sh $target first" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
cargo fuzz coverage --fuzz-dir "$fuzz" --sanitizer none "$target" "$corpus" >&2
# cargo fuzz coverage builds under the target directory of where it runs.
bin="target/$host/coverage/$host/release/$target"
profile="$fuzz/coverage/$target/coverage.profdata"
# Streamform's own sources only: not the harness, the standard library or
# other crates.
report="$("$tools/llvm-cov" report "$bin" -instr-profile="$profile" \
    --ignore-filename-regex='(/\.cargo/|/rustc/|/fuzz/|/library/)' \
    --show-region-summary=true --show-branch-summary=false --show-instantiation-summary=false)"
printf '%s\n' "$report" | tee "$fuzz/coverage/$target/report.txt"
echo "$(ls "$corpus" | wc -l) inputs; total: $(printf '%s\n' "$report" | awk '/^TOTAL/ {print "regions " $4 ", lines " $10}')"
