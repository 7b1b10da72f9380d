#!/usr/bin/env bash
# The language server driven by a real editor: Neovim (Debian's package,
# installed here when missing), headless, runs nvim_lsp_test.lua against a
# copy of examples/shop, then `streamform plan` confirms the rename keeps
# the model's state.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if ! command -v nvim >/dev/null; then
  echo "installing neovim (Debian package) for the editor test"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq neovim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim >/dev/null; }
  else sudo apt-get install -y -qq neovim >/dev/null; fi
fi
# The binary under test: STREAMFORM_BIN, else the release build brought up to date.
if [ -n "${STREAMFORM_BIN:-}" ]; then bin="$STREAMFORM_BIN"
else (cd "$repo" && cargo build --release -q -p streamform-cli); bin="$repo/target/release/streamform"; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$repo/examples/shop" "$work/shop"
# The manifest before the rename, to plan the renamed project against.
(cd "$work/shop" && "$bin" inspect-plan --json > "$work/before.json")
cd "$work"
PROJECT="$work/shop" STREAMFORM="$bin" timeout 60 nvim --headless -n -u NONE -i NONE \
  -c "luafile $here/nvim_lsp_test.lua" </dev/null
echo
# What the editor wrote is a rename that keeps state.
cd "$work/shop"
set +e
out="$("$bin" plan --against "$work/before.json" 2>&1)"
code=$?
set -e
echo "$out"
if [ $code -ne 0 ] || ! grep -qx "spend_by_customer  SAFE" <<<"$out" || grep -q "customer_totals" <<<"$out" || grep -q "fixture error" <<<"$out"; then
  echo "FAIL plan after the editor's rename (exit $code)"; exit 1
fi
echo "ok plan: the rename keeps state"
