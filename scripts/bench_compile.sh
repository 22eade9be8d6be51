#!/usr/bin/env bash
# Compile-time benchmark (no GPU needed): NVRTC from scratch, from the disk cache and from
# memory, for every variant at its default parameters.
# Usage: scripts/bench_compile.sh [sm_XX] [repetitions]   (build dir: $BUILD, default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
# A folder of carried binaries (no CMakeCache.txt) is used as it is; a build folder is brought up to date.
if [ -f "$build/CMakeCache.txt" ] || [ ! -x "$build/bench/compile_bench" ]; then
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DTILELAB_GUI=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target compile_bench >/dev/null
fi
"$build/bench/compile_bench" "${1:-sm_90}" "${2:-5}"
