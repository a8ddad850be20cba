#!/usr/bin/env bash
# Prints how / follows pause and hit events part by part (issue 45): bytes fetched per hit and
# per pause, paused → card shown, measured in Debian's Chromium against the release binary. Run
# after scripts/build.sh. MAIN_PAGE_BENCH_BREAKPOINTS (30), MAIN_PAGE_BENCH_HITS (200) and
# MAIN_PAGE_BENCH_PAUSES (10) change what it measures.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT/end2end"
exec node main-page-bench.mjs
