#!/usr/bin/env bash
# Prints how /processes follows process events row by row (issue 45): launched → row shown, and
# the bytes the page fetches per launched process, measured in Debian's Chromium against the
# release binary. Run after scripts/build.sh. PROCESS_LIST_BENCH_LISTED (40) and
# PROCESS_LIST_BENCH_EVENTS (20) change what it measures.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT/end2end"
exec node process-list-bench.mjs
