#!/usr/bin/env bash
# Installs what is missing, builds the release binary and site, and serves Breakroom on
# http://127.0.0.1:5174. Arguments go to the binary: e.g. scripts/start.sh --port 6000.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/setup.sh
# --split: each page's code is a wasm chunk of its own (cargo-leptos takes it only on the command line).
cargo leptos build --release --split
exec target/release/breakroom "$@"
