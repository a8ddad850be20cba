#!/usr/bin/env bash
# Prints what a browser downloads to hydrate the pages: the release wasm and its JS glue, raw and
# gzip -9, against the 350 KB gzip budget. Run after `cargo leptos build --release`.
set -euo pipefail
source "$(dirname "$0")/env.sh"
pkg="$ROOT/target/site/pkg"
total=0
for f in "$pkg/breakroom.wasm" "$pkg/breakroom.js"; do
  [ -f "$f" ] || { echo "wasm-size: $f is missing; run cargo leptos build --release first" >&2; exit 1; }
  raw=$(stat -c %s "$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  total=$((total + gz))
  printf '%-16s %9d B raw %9d B gzip\n' "$(basename "$f")" "$raw" "$gz"
done
printf 'wasm + js gzip:  %d B (%d KB; budget 350 KB)\n' "$total" "$((total / 1024))"
