#!/usr/bin/env bash
# Installs what is missing, then runs every test: Rust (unit and HTTP), Python client (against
# the real server binary), and the browser tests (real server, real Python, Debian's Chromium).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/setup.sh

step() { printf '\n== %s\n' "$*"; }
started=$(date +%s)

step "build: release binary with its site inside, the wasm split per page (scripts/build.sh: cargo leptos build --release --split --precompress)"
scripts/build.sh
step "what each page downloads (scripts/wasm-size.sh, in Chromium)"
scripts/wasm-size.sh

step "the wheel (scripts/package.sh: maturin packs the binary just built, compiling nothing), installed in a fresh venv"
scripts/package.sh
wheel_dir=$(mktemp -d)
trap 'rm -rf "$wheel_dir"' EXIT
python3 -m venv "$wheel_dir/venv"
"$wheel_dir/venv/bin/pip" install -q dist/breakroom-*.whl
# client/tests/test_wheel.py and end2end/tests/wheel.spec.ts start its breakroom from elsewhere.
export BREAKROOM_WHEEL_VENV="$wheel_dir/venv"

step "Rust tests (cargo test --release --workspace)"
cargo test --release --workspace

step "the session-manager and HTTP tests again, on PostgreSQL (a throwaway cluster; BREAKROOM_TEST_STORE=postgres)"
BREAKROOM_TEST_STORE=postgres cargo test --release -p breakroom-debugger --test repl --test store --test several_servers
BREAKROOM_TEST_STORE=postgres cargo test --release -p breakroom --test integration

step "Python client tests (pytest, against target/release/breakroom)"
BREAKROOM_BIN="$ROOT/target/release/breakroom" python3 -m pytest -q client/tests

step "the VS Code extension's adapter factory (node --test editors/vscode/test/)"
node --test editors/vscode/test/

step "the book (mdbook build docs), and every link in it and in README.md resolves"
mdbook build docs
python3 scripts/check-book-links.py docs/book

step "browser tests (Playwright in Debian's Chromium)"
(cd end2end && npx playwright test)

echo
echo "All test suites passed in $(( $(date +%s) - started )) s."
