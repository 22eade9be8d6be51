#!/usr/bin/env bash
# Lesson 19 (where the convolution's filter lives) on the GPU: every placement under
# compute-sanitizer at odd sizes (memcheck for all four, racecheck for the shared tile and bank),
# the GPU tests that validate and count the variant at random sizes and parameters, the benchmark
# table (scripts/bench_constant.sh) and the hardware counters against Nsight Compute on the same
# launches (scripts/check_counters.py). Binaries from scripts/carry_build.sh.
# Usage: scripts/gpu_check_constant.sh CARRY OUT      (logs into OUT; exit 0 only if all passed)
#   COUNTERS_ONLY=1 skips the sanitizer, the tests and the benchmark (the counter and SASS checks only).
set -uo pipefail
# shellcheck source=scripts/gpu_sanitize_start.sh
. "$(dirname "$0")/gpu_sanitize_start.sh"
sanitize_start constant "$@"

sanitize() { sanitize_lesson "$1" 19 "${@:2}"; }   # tool size params...
if [ -z "${COUNTERS_ONLY:-}" ]; then
for size in 333x77x1 31x5x1; do
  sanitize memcheck $size FILTER_IN=immediate FILTERS=1 RADIUS=4 BX=8 BY=4
  sanitize memcheck $size FILTER_IN=constant FILTERS=32 INDEX=per_lane RADIUS=3
  sanitize memcheck $size FILTER_IN=global FILTERS=8 RADIUS=1 BX=128 BY=1
  sanitize memcheck $size FILTER_IN=shared FILTERS=32 INDEX=per_lane RADIUS=4 BX=16 BY=32
  sanitize racecheck $size FILTER_IN=shared FILTERS=32 INDEX=per_lane RADIUS=2
  sanitize synccheck $size FILTER_IN=shared FILTERS=4 RADIUS=1 BX=64 BY=2
done

"$carry/tests/tilelab_tests" --gtest_filter='*/convolution_filter_memory:*Choice*' >"$out/gpu_tests.log" 2>&1
rc=$?
echo "gpu tests (every VariantOnGpu test of convolution.filter_memory): rc=$rc" | tee -a "$summary"
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/gpu_tests.log" >>"$summary"
[ $rc -eq 0 ] || failed=1

scripts/bench_constant.sh "$carry" "$out/bench" >"$out/bench.md" 2>"$out/bench.err" || failed=1
echo "bench_constant: $(tail -1 "$out/bench.md")" >>"$summary"
fi

python3 scripts/check_counters.py "$carry/tilelab-cli" --variants convolution.filter_memory --per-variant 4 \
    --ncu-repeat 2 >"$out/counters.txt" 2>&1 || failed=1
tail -25 "$out/counters.txt" >>"$summary"
# The SASS behind the lesson's claims: one filter in __constant__ is an operand of the FFMAs (no
# LDC among the taps), 32 filters an LDC per tap; nvcc and cuobjdump of this machine's toolkit.
sass=$(mktemp -d)
cat >"$sass/k.cu" <<'CU'
#include "convolution/filter_memory.cuh"
template __global__ void filter_memory_convolution<0, 2, 1, false, 32, 8>(const float*, const float*, float*, int, int, unsigned long long*);
template __global__ void filter_memory_convolution<1, 2, 1, false, 32, 8>(const float*, const float*, float*, int, int, unsigned long long*);
template __global__ void filter_memory_convolution<1, 2, 32, false, 32, 8>(const float*, const float*, float*, int, int, unsigned long long*);
template __global__ void filter_memory_convolution<1, 2, 32, true, 32, 8>(const float*, const float*, float*, int, int, unsigned long long*);
CU
if /usr/local/cuda/bin/nvcc -cubin -arch=sm_90 -O3 -Ikernels -o "$sass/k.cubin" "$sass/k.cu" &&
   /usr/local/cuda/bin/cuobjdump -sass "$sass/k.cubin" >"$out/sass.txt"; then
  for f in $(grep -o "Function : [A-Za-z0-9_]*" "$out/sass.txt" | cut -d' ' -f3); do
    body=$(awk -v f="$f" '/Function :/{on = ($3 == f)} on' "$out/sass.txt")
    echo "sass $f: FFMA $(grep -c 'FFMA' <<<"$body"), LDC $(grep -c ' LDC' <<<"$body") (from c[0x3] $(grep ' LDC' <<<"$body" | grep -c 'c\[0x3\]')), ULDC from c[0x3] $(grep 'ULDC' <<<"$body" | grep -c 'c\[0x3\]')" | tee -a "$summary"
  done
else
  echo "sass: nvcc or cuobjdump failed" | tee -a "$summary"; failed=1
fi
# The constant cache's hits and misses (Nsight Compute) where the bank grows past it: uniform reads of
# 8, 16 and 32 filters, and 32 per lane, at the lesson's size.
for cfg in "INDEX=uniform FILTERS=8" "INDEX=uniform FILTERS=16" "INDEX=uniform FILTERS=32" "INDEX=per_lane FILTERS=32"; do
  sets=(--set FILTER_IN=constant); for s in $cfg; do sets+=(--set "$s"); done
  /usr/local/cuda/bin/ncu --metrics idc__requests.sum,idc__requests_lookup_hit.sum,idc__requests_lookup_miss.sum,smsp__inst_executed_op_ldc.sum,sm__idc_divergent_instruction_replays.sum,gpu__time_duration.sum \
      -k regex:filter_memory --launch-count 1 "$cli" run 19 --no-hardware --reps 1 --warmup 0 "${sets[@]}" >"$out/ncu_idc.txt.tmp" 2>&1
  echo "ncu $cfg: $(grep -E 'idc__|ldc|replays|duration' "$out/ncu_idc.txt.tmp" | awk '{printf "%s=%s ", $1, $NF}')" | tee -a "$summary"
  cat "$out/ncu_idc.txt.tmp" >>"$out/ncu_idc.txt"
done
rm -f "$out/ncu_idc.txt.tmp"
sanitize_finish
