#!/usr/bin/env bash
# Prints the REPL page's figures (issue 45): bytes fetched per eval and Enter → answer shown at
# 10 and 2,000 entries, the eval's response → shown, and a second viewer's delay, measured in
# Debian's Chromium against the release binary. Run after scripts/build.sh.
# REPL_BENCH_EVALS (30) and REPL_BENCH_LENGTHS ("10,2000") change what it measures.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT/end2end"
exec node repl-bench.mjs
