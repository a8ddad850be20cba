#!/usr/bin/env bash
# Prints, per page, what a browser with an empty cache downloads to render and hydrate it, as
# measured in Debian's Chromium (Playwright) against the release binary: every .wasm and .js
# response, gzip -9 of each, split into the part every page shares and the page's own chunks,
# and the page's first paint (median of 5 loads). Fails when a page is over 250,000 B gzip (/repl/{id}: 300,000, issue 45) or a
# file is fetched twice; first paint is printed against 300 ms, not enforced (it is a timing).
# Run after scripts/build.sh (`cargo leptos build --release --split --precompress`; scripts/test.sh does).
# BREAKROOM_BIN and LEPTOS_SITE_ROOT measure another build; WASM_BUDGET_BYTES and
# FIRST_PAINT_BUDGET_MS change the budgets; WASM_SIZE_FILES=/repl/{id} lists that route's own
# files, largest first.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT/end2end"
exec node wasm-size.mjs
