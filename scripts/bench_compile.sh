#!/usr/bin/env bash
# Compile-time benchmark (no GPU needed): NVRTC from scratch, from the disk cache and from
# memory, for every variant at its default parameters.
# Usage: scripts/bench_compile.sh [sm_XX] [repetitions]   (build dir: $BUILD, default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DTILELAB_GUI=OFF >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target compile_bench >/dev/null
"$build/bench/compile_bench" "${1:-sm_90}" "${2:-5}"
