#!/usr/bin/env bash
# Builds xgpu and runs the test suite (the tiers and their times: docs/testing.md).
#   scripts/test.sh             release build in build/, every test
#   scripts/test.sh --quick     release build in build/, the quick tier (no whole-suite
#                               sample tests, no Python tool tests): for development
#   scripts/test.sh --sanitize  ASan + UBSan build (clang) in build-asan/: every test of
#                               C code, the whole-suite sample tests on a fifth of the
#                               samples each (XGPU_TEST_TIER=sanitize)
# Installs missing Debian packages first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

tier=${1:-full}
case $tier in
  full | --quick | --sanitize) ;;
  *) echo "usage: scripts/test.sh [--quick | --sanitize]" >&2; exit 2 ;;
esac

scripts/setup.sh

select=()
if [ "$tier" = "--sanitize" ]; then
  dir=build-asan
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export XGPU_TEST_TIER=sanitize
  select=(-LE python)
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$dir" -DXGPU_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
else
  dir=build
  [ "$tier" = "--quick" ] && select=(-L quick)
  cmake -S . -B "$dir"
fi
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" "${select[@]}"
