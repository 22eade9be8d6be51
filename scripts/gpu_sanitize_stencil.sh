#!/usr/bin/env bash
# The order-R stencil kernels (issue #13: basic and shared-tiled, RADIUS 1 and 2) under
# compute-sanitizer at odd sizes — memcheck for both kernels, racecheck for the shared-tiled one —
# then the GPU tests that validate and count every variant at random sizes and parameters, and
# one timed run of each order at 256³ for the lessons. First, lesson 11's register-tiled kernel
# with float2 and float4 pieces of a row (VX = 2, 4): memcheck, racecheck and synccheck at sizes
# that cut the last tile along every axis. Binaries from scripts/carry_build.sh.
# Usage: scripts/gpu_sanitize_stencil.sh CARRY OUT      (logs into OUT; exit 0 only if all passed)
# Env: PIECES_ONLY=1 stops after lesson 11's runs and its GPU tests.
set -uo pipefail
# shellcheck source=scripts/gpu_sanitize_start.sh
. "$(dirname "$0")/gpu_sanitize_start.sh"
sanitize_start stencil "$@"

sanitize() { sanitize_lesson "$@"; }   # tool lesson size params...

for size in 132x29x13 68x37x11; do
  for tool in memcheck racecheck synccheck; do
    sanitize $tool 11 $size TX=128 TY=4 RY=1 Z=5 HALO=1 VX=4
    sanitize $tool 11 $size TX=64 TY=4 RY=2 Z=4 HALO=1 VX=2
  done
done
sanitize memcheck 11 68x37x11 TX=32 TY=4 RY=4 Z=3 HALO=1 VX=1
if [ "${PIECES_ONLY:-0}" = 1 ]; then
  sanitize_gpu_tests 'AllVariants/VariantOnGpu.*/stencil_register_tiled' "VariantOnGpu stencil_register_tiled"
  sanitize_finish
fi

# The order-2 kernels, at two odd sizes; then the 7-point ones they replaced.
for size in 37x29x23 19x13x11; do
  sanitize memcheck 08 $size BX=32 BY=8 BZ=1 RADIUS=2
  sanitize memcheck 09 $size T=8 RADIUS=2
  sanitize racecheck 09 $size T=7 RADIUS=2
done
sanitize memcheck 08 37x29x23 BX=4 BY=4 BZ=4 RADIUS=2
sanitize memcheck 09 37x29x23 T=5 RADIUS=2
sanitize memcheck 08 37x29x23 BX=32 BY=8 BZ=1 RADIUS=1
sanitize memcheck 09 37x29x23 T=8 RADIUS=1
sanitize racecheck 09 37x29x23 T=8 RADIUS=1

sanitize_gpu_tests 'AllVariants/VariantOnGpu.*/stencil_basic:AllVariants/VariantOnGpu.*/stencil_smem_tiled:ValidationGpu.*' \
  "VariantOnGpu, ValidationGpu"

# The halo's cost, measured: each order in both kernels at 256³ (median of 20, L2 flushed).
for run in "08 BX=32 BY=8 BZ=1 RADIUS=1" "08 BX=32 BY=8 BZ=1 RADIUS=2" "09 T=8 RADIUS=1" "09 T=8 RADIUS=2" \
           "09 T=10 RADIUS=1" "09 T=10 RADIUS=2"; do
  set -- $run
  lesson=$1; shift
  sets=(); for s in "$@"; do sets+=(--set "$s"); done
  "$cli" --csv run "$lesson" --size 256 "${sets[@]}" --reps 20 >>"$out/timing.csv" 2>>"$out/timing.err" || failed=1
done
sanitize_finish
