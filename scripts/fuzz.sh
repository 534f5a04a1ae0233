#!/usr/bin/env bash
# Fuzzes the binary readers and the line codecs for a bounded time (docs/fuzzing.md).
#   scripts/fuzz.sh [SECONDS]      default 60
# Builds fuzz/ with clang in build-fuzz/, writes a seed corpus (assembled modules, the
# lowering's golden outputs, and -- when build/ exists -- a few samples compiled with
# --cuda-device-only and the host tables of the annotated samples), then runs libFuzzer:
# fuzz_gpubin for SECONDS, then fuzz_compress (the compression codecs' decoders, no seeds,
# its own corpus build-fuzz/fuzz-corpus-compress) for a quarter of that, at least 10 s.
# Any crash, sanitizer report, leak or timeout fails the script; libFuzzer leaves the
# input as build-fuzz/crash-* (or leak-*, timeout-*), which reproduces with:
# build-fuzz/bin/fuzz_gpubin FILE (or build-fuzz/bin/fuzz_compress FILE)
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
case $secs in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2 ;; esac
dir=build-fuzz
cc=${XGPU_FUZZ_CC:-clang-19}

CC=$cc cmake -S . -B "$dir" -DXGPU_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j"$(nproc)" --target fuzz_gpubin fuzz_compress fuzz_seeds

seeds=$dir/fuzz-seeds
corpus=$dir/fuzz-corpus
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus"
"$dir/bin/fuzz_seeds" "$seeds" test/golden/*.s
xgpucc=${XGPU_CC:-build/bin/xgpu-cc}
if [ -x "$xgpucc" ]; then
  for s in vecadd reduction histogram nbody; do
    "$xgpucc" --cuda-device-only "samples/$s.cu" -o "$seeds/sample-$s.fat"
  done
else
  echo "fuzz.sh: no $xgpucc; the corpus has no compiled samples" >&2
fi
# host tables: the sections of the annotated samples as the build linked them
for s in xmem_tiled:xgpu_atoms ldesc_histo:xgpu_ldesc; do
  exe=build/samples/${s%%:*}
  if [ -x "$exe" ]; then
    objcopy -O binary --only-section="${s#*:}" "$exe" "$seeds/${s#*:}.bin"
  fi
done
echo "fuzz.sh: $(ls "$seeds" | wc -l) seeds; fuzzing for ${secs}s"

# corpus: what earlier runs found (kept in build-fuzz/), seeds read but not written
cd "$dir"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  bin/fuzz_gpubin -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 fuzz-corpus fuzz-seeds

# the codecs: inputs are a 3-byte header and at most a line, so 256 bytes cover them
csecs=$((secs / 4 > 10 ? secs / 4 : 10))
mkdir -p fuzz-corpus-compress
echo "fuzz.sh: fuzzing the line codecs for ${csecs}s"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  bin/fuzz_compress -max_total_time="$csecs" -timeout=10 -rss_limit_mb=2048 -max_len=256 \
    -print_final_stats=1 fuzz-corpus-compress
