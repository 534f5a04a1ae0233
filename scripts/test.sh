#!/usr/bin/env bash
# Builds xgpu and runs the whole test suite.
#   scripts/test.sh             release build in build/
#   scripts/test.sh --sanitize  ASan + UBSan build (clang) in build-asan/
# Installs missing Debian packages first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$dir" -DXGPU_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
else
  dir=build
  cmake -S . -B "$dir"
fi
cmake --build "$dir" -j"$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)"
