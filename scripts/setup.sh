#!/usr/bin/env bash
# Installs what Breakroom needs to build and test, skipping whatever is already present.
# Safe to run again: every step checks first.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n== %s\n' "$*"; }
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! cargo leptos --version 2>/dev/null | grep -q '0\.3\.10'; then
  say "cargo install cargo-leptos 0.3.10 (about 15 minutes)"
  cargo install cargo-leptos --locked --version 0.3.10
fi

# cargo-leptos runs whatever wasm-bindgen is on PATH, so it must match the crate pinned in Cargo.toml.
WB_VERSION=0.2.130
if ! wasm-bindgen --version 2>/dev/null | grep -q "$WB_VERSION"; then
  say "cargo install wasm-bindgen-cli $WB_VERSION"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# mdBook builds the docs (docs/); scripts/test.sh builds them so a broken link fails CI. 0.5.4
# needs Rust 1.88; without its live-reload server it compiles in a few minutes.
if ! mdbook --version 2>/dev/null | grep -q 'v0\.5\.4'; then
  say "cargo install mdbook 0.5.4"
  cargo install mdbook --locked --version 0.5.4 --no-default-features --features search
fi

if ! command -v chromium >/dev/null 2>&1; then
  say "apt-get install chromium"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# The openssl command makes the throwaway CAs of the HTTPS tests (client/tests/tls_ca.py,
# end2end/tests/tls.spec.ts); the server itself uses rustls.
if ! command -v openssl >/dev/null 2>&1; then
  say "apt-get install openssl"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openssl >/dev/null
fi

# PostgreSQL for the PostgreSQL store's tests, which initdb and run throwaway clusters of their own
# (debugger/src/store/test_postgres.rs, client/tests/postgres_cluster.py); contrib has pg_trgm,
# which the store's migrations create. The system-wide cluster is not wanted: the drop-in keeps
# the package from creating one, and on systemd hosts the service it starts is stopped and disabled.
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null \
    || ! compgen -G '/usr/share/postgresql/*/extension/pg_trgm.control' >/dev/null; then
  say "apt-get install postgresql postgresql-contrib (no system-wide cluster)"
  $SUDO mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | $SUDO tee /etc/postgresql-common/createcluster.d/breakroom.conf >/dev/null
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql postgresql-contrib >/dev/null
  if [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now postgresql >/dev/null 2>&1 || true
  fi
fi

# Playwright drives Debian's Chromium (no browser download); binaryen gives a wasm-opt that
# produces a wasm that hydrates (Debian's binaryen 108 does not); oidc-provider is the OpenID
# provider the sign-in tests start (issue 49).
if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ ! -d end2end/node_modules/@playwright/test ] || [ ! -d end2end/node_modules/@vscode/debugadapter-testsupport ] || [ ! -d end2end/node_modules/oidc-provider ]; then
  say "npm ci in end2end/"
  (cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi

# maturin packs the server binary and the client into one wheel (scripts/package.sh, issue 53).
if ! maturin --version 2>/dev/null | grep -q '^maturin 1\.'; then
  say "pip install maturin"
  python3 -m pip install -q 'maturin>=1.9,<2'
fi

# requests: the token tests make the calls an unchanged cideldill client makes, with requests.
# mcp: the official MCP SDK is the agent in client/tests/test_mcp.py.
if ! python3 -c 'import pytest, requests, mcp' 2>/dev/null; then
  say "pip install pytest requests mcp"
  python3 -m pip install -q pytest requests mcp
fi
# The data libraries whose values the REPL shows as tables and images (client/tests/test_rich_outputs.py).
if ! python3 -c 'import pandas, numpy, matplotlib, PIL' 2>/dev/null; then
  say "pip install pandas numpy matplotlib pillow"
  python3 -m pip install -q pandas numpy matplotlib pillow
fi
# The asyncio services the task pauses are tested on (client/tests/test_asyncio_tasks.py), on
# asyncio's own loop and on uvloop, for every Python the tests run programs on: this one and
# pyenv's 3.12 and 3.13 when installed.
for py in python3 "$HOME"/.pyenv/versions/3.12*/bin/python3 "$HOME"/.pyenv/versions/3.13*/bin/python3; do
  [ -x "$(command -v "$py")" ] || continue
  if ! "$py" -c 'import fastapi, uvicorn, aiohttp, uvloop' 2>/dev/null; then
    say "pip install fastapi uvicorn aiohttp uvloop ($py)"
    "$py" -m pip install -q fastapi uvicorn aiohttp uvloop
  fi
done
