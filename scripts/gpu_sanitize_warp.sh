#!/usr/bin/env bash
# The warp-tiled kernel (lesson 06, issue 17) under compute-sanitizer at odd sizes and at sizes
# that are multiples of the block tile (no partial tile): memcheck (the
# zero-filled cp.async tails, the scalar copies where N % 4 != 0, the float4 stores of C) and
# racecheck (the STAGES-deep ring of shared buffers: a slice overwritten while another warp still
# reads it) at every STAGES and a few warp shapes; then the GPU tests of the warp kernel and of
# every variant (validation and model == counted at random sizes). Binaries from
# scripts/carry_build.sh (or a build folder: tilelab-cli, tilelab-gpu-worker, tests/tilelab_tests).
# Usage: scripts/gpu_sanitize_warp.sh CARRY OUT      (logs into OUT; exit 0 only if all passed)
# Env:   QUICK=1: a short session's subset (STAGES 1 and 3 at one odd size, STAGES 4 at the other,
#        one other warp shape; about a minute on an H100) instead of the whole list.
set -uo pipefail
# shellcheck source=scripts/gpu_sanitize_start.sh
. "$(dirname "$0")/gpu_sanitize_start.sh"
sanitize_start warp "$@"

sanitize() { sanitize_lesson "$1" 06 "${@:2}"; }   # tool size params...

# Every STAGES at two odd sizes: N odd (scalar B copies, scalar C stores) and N % 4 == 0 with M, K
# odd (16-byte copies, zero-filled tails).
if [ "${QUICK:-0}" = 1 ]; then
  sanitize memcheck 301x299x303 STAGES=1
  sanitize racecheck 301x299x303 STAGES=1
  sanitize memcheck 301x299x303 STAGES=3
  sanitize racecheck 301x299x303 STAGES=3
  sanitize memcheck 257x260x131 STAGES=4
  sanitize racecheck 257x260x131 STAGES=4
  sanitize memcheck 129x131x67 BM=64 BN=64 BK=8 WM=32 WN=32 WNITER=1 STAGES=2
  sanitize racecheck 129x131x67 BM=64 BN=64 BK=8 WM=32 WN=32 WNITER=1 STAGES=2
  sanitize memcheck 384x256x96 STAGES=3
  sanitize racecheck 384x256x96 STAGES=3
else
for size in 301x299x303 257x260x131; do
  for stages in 1 2 3 4; do
    sanitize memcheck $size STAGES=$stages
    sanitize racecheck $size STAGES=$stages
  done
done
# Other warp shapes: WMITER = 2, a 64×64 block of 4 warps, one warp per block with BK below the
# 8-k copy run, and K shorter than one slice.
sanitize memcheck 301x299x303 WNITER=1
sanitize racecheck 301x299x303 WNITER=1
sanitize memcheck 129x131x67 BM=64 BN=64 BK=8 WM=32 WN=32 WNITER=1 STAGES=2
sanitize racecheck 129x131x67 BM=64 BN=64 BK=8 WM=32 WN=32 WNITER=1 STAGES=2
sanitize memcheck 45x37x29 BM=32 BN=32 BK=4 WM=32 WN=32 WNITER=1 TM=4 TN=8 STAGES=4
sanitize racecheck 45x37x29 BM=32 BN=32 BK=4 WM=32 WN=32 WNITER=1 TM=4 TN=8 STAGES=4
sanitize memcheck 129x132x3 STAGES=4
# Sizes that are multiples of the block tile: no partial tile anywhere.
for stages in 1 2 3 4; do
  sanitize memcheck 384x256x96 STAGES=$stages
  sanitize racecheck 384x256x96 STAGES=$stages
done
fi

sanitize_gpu_tests 'WarpTiled*:AllVariants/VariantOnGpu.*/matmul_warp_tiled' "WarpTiledGpu, VariantOnGpu matmul_warp_tiled"
sanitize_finish
