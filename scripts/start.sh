#!/usr/bin/env bash
# Installs what is missing, builds the release binary (its site inside) and serves Breakroom on
# http://127.0.0.1:5174. Arguments go to the binary: e.g. scripts/start.sh --port 6000.
# On a checkout built before with no build input changed since, it serves at once (issue 53).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
if ! scripts/build.sh --fresh; then
  scripts/setup.sh
  scripts/build.sh
fi
exec target/release/breakroom "$@"
