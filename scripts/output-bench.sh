#!/usr/bin/env bash
# Prints how a process page follows a chatty program (issue 45): printed → shown, and the bytes
# the page fetches per line, measured in Debian's Chromium against the release binary. Run after
# scripts/build.sh. OUTPUT_BENCH_LINES (200), OUTPUT_BENCH_TICK_MS (50) and
# OUTPUT_BENCH_BACKLOG (2000) change what it measures.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT/end2end"
exec node output-bench.mjs
