#!/usr/bin/env bash
# Installs what is missing, builds the release binary and site, and serves Breakroom on
# http://127.0.0.1:5174. Arguments go to the binary: e.g. scripts/start.sh --port 6000.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/setup.sh
cargo leptos build --release
exec target/release/breakroom "$@"
