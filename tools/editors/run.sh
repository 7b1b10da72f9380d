#!/usr/bin/env bash
# The editor integrations as users meet them: the VS Code extension is
# built with npm (its TypeScript must compile against the real
# vscode-languageclient), and Neovim drives `streamform lsp` (nvim_test.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
echo "== VS Code extension: npm ci && npm run compile"
# npm's cache lives outside the repository (~/.npm); node_modules/ and out/ are ignored.
(cd "$repo/editors/vscode" && npm ci --no-audit --no-fund --loglevel=error && npm run -s compile && test -s out/extension.js)
echo "ok VS Code extension builds"
echo "== Neovim"
"$here/nvim_test.sh"
