#!/usr/bin/env bash
# Fuzzes the HTTP API from its own OpenAPI document with schemathesis (on demand, not in CI):
# every operation, malformed and well-formed input, every check but one. The one left out,
# positive_data_acceptance, expects any schema-valid body to succeed; Breakroom rightly refuses
# some (a CID that is not the SHA-512 of its data, a replacement with another signature), which
# a schema cannot express.
#
#   scripts/fuzz-api.sh [examples-per-operation]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/fuzz-venv
[ -x "$venv/bin/schemathesis" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q schemathesis; }
cargo build -q -p breakroom
port=5396
data=$(mktemp -d)
# POST /api/processes launches what it is sent: with an empty PATH no generated name is a program.
mkdir -p "$data/no-programs"
PATH="$data/no-programs" target/debug/breakroom --port "$port" --data-dir "$data" >/dev/null 2>&1 &
server=$!
trap 'kill $server; rm -rf "$data"' EXIT
sleep 1
# /api/live streams forever and /api/poll holds for 25 s: both are left out.
"$venv/bin/schemathesis" run "http://127.0.0.1:$port/api/openapi.json" --url "http://127.0.0.1:$port" \
  -c all --exclude-checks positive_data_acceptance \
  --exclude-path /api/live --exclude-path-regex '/api/poll/' \
  -n "${1:-100}" --request-timeout 40
