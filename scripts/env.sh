# Sourced by the other scripts: the tools setup.sh installs, first on PATH.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# binaryen's wasm-opt from npm (Debian's older one builds a wasm that does not hydrate).
export PATH="$ROOT/end2end/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# leptos reads this at compile time (cargo-leptos sets it too): the same value everywhere keeps
# `cargo test` and `cargo leptos build` from rebuilding each other's crates.
export LEPTOS_OUTPUT_NAME=breakroom
