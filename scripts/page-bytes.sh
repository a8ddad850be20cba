#!/usr/bin/env bash
# Prints the document bytes of the server-rendered pages (the HTML response, and gzip -9 of it)
# with a REPL session of 100 entries and a call tree of 300 calls, against the release binary.
# Run after scripts/build.sh. BREAKROOM_BIN and LEPTOS_SITE_ROOT measure another build.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT/end2end"
exec node page-bytes.mjs
