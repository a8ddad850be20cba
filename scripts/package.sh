#!/usr/bin/env bash
# Builds the wheel users install (issue 53): dist/breakroom-<version>-py3-none-manylinux_2_34_x86_64.whl,
# the server binary (its site inside) as the `breakroom` command and the Python client as the
# `breakroom` package, with the child-process hook as breakroom-hook.pth.
#   pip install dist/breakroom-*.whl
# The site is built first (scripts/build.sh), then maturin packs the binary cargo-leptos built:
# same features, profile and environment, so cargo finds it fresh and compiles nothing again.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
if ! command -v maturin >/dev/null 2>&1; then
  scripts/setup.sh
fi
scripts/build.sh
rm -rf dist
# manylinux_2_34: the newest glibc symbol the binary uses is GLIBC_2.34 (maturin checks it).
(cd packaging && maturin build --release --compatibility manylinux_2_34 --out "$ROOT/dist")
ls -l dist/
