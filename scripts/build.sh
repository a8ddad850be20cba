#!/usr/bin/env bash
# Builds the release binary with its site embedded (cargo leptos build --release --split
# --precompress), unless nothing it is built from changed since the last build that succeeded.
#   scripts/build.sh          build if needed
#   scripts/build.sh --fresh  only answer: exit 0 if the last build is current, 1 if not
# "Nothing changed" is a hash of every build input's content (tracked or new, committed or not),
# the toolchain's versions and the binary's size and time, recorded after a successful build.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

# --precompress: cargo-leptos then builds the site (and its .br/.gz) before it compiles the
# server, which embeds it; without it the two are built at once and the binary gets a stale site.
FLAGS=(--release --split --precompress)
STAMP=target/release/.breakroom-build-stamp
INPUTS=(Cargo.toml Cargo.lock app server debugger client/breakroom client/sitecustomize.py
        client/breakroom_hook.py style public)

sources_hash() {
  local files
  files=$(git ls-files -co --exclude-standard -- "${INPUTS[@]}" | while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done)
  {
    rustc -V
    cargo leptos --version
    echo "${FLAGS[*]} LEPTOS_OUTPUT_NAME=$LEPTOS_OUTPUT_NAME"
    paste <(printf '%s\n' "$files") <(printf '%s\n' "$files" | git hash-object --stdin-paths)
  } | sha256sum | cut -d' ' -f1
}

binary_id() { stat -c '%s %Y' target/release/breakroom 2>/dev/null || echo none; }

fresh() {
  [ -x target/release/breakroom ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$(sources_hash 2>/dev/null) $(binary_id)" ]
}

if [ "${1:-}" = "--fresh" ]; then
  fresh
  exit
fi
if fresh; then
  echo "target/release/breakroom is up to date (no build input changed since it was built)"
  exit 0
fi
rm -f "$STAMP"
# Hashed before building: a file changed during the build makes the next run build again.
before=$(sources_hash)
cargo leptos build "${FLAGS[@]}"
echo "$before $(binary_id)" > "$STAMP"
