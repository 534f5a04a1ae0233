#!/usr/bin/env bash
# Installs the Debian packages xgpu needs, when they are missing. Safe to re-run.
# Needs root (or sudo) only when something has to be installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  llvm-19-dev clang-19 libclang-19-dev   # compiler driver, LLVM C API, libclang
  libomp-19-dev                          # clang's omp.h and libomp (#include <omp.h>, -fopenmp)
  libelf-dev                             # device binary (ELF) reader and writer
  zlib1g-dev                             # the device binary's checksum (CRC-32)
  libjson-c-dev                          # statistics and objdump JSON
  libcriterion-dev                       # tests
  libclang-rt-19-dev                     # sanitizer runtimes for the ASan/UBSan build
  python3                                # bench and report scripts, xgpu-sweep
  python3-matplotlib                     # xgpu-report's and the evaluations' figures
  chromium                               # the report's test opens the page headless
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
