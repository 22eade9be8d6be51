#!/usr/bin/env bash
# Lesson 20's temporal-blocking kernel (issue 35) under compute-sanitizer at odd sizes — memcheck,
# racecheck and synccheck, a launch of several steps and a remainder launch, the halo rows in shared
# memory from one and from several thread rows, one and two columns a thread, at sizes where every
# block's region reaches the grid's edge and (203×97×21) where some lie inside it, the kernel's
# other copy of its walk — then the GPU tests
# that validate and count the variant at random sizes and parameters. Binaries from
# scripts/carry_build.sh.
# Usage: scripts/gpu_sanitize_temporal.sh CARRY OUT      (logs into OUT; exit 0 only if all passed)
set -uo pipefail
# shellcheck source=scripts/gpu_sanitize_start.sh
. "$(dirname "$0")/gpu_sanitize_start.sh"
sanitize_start temporal "$@"

for size in 67x45x29 19x13x11 203x97x21; do
  for tool in memcheck racecheck synccheck; do
    for cx in 1 2; do
      sanitize_lesson "$tool" stencil.temporal "$size" STEPS=7 TSTEPS=3 TY=4 RY=3 CX=$cx ZC=9 AHEAD=2
    done
  done
  sanitize_lesson memcheck stencil.temporal "$size" STEPS=9 TSTEPS=8 TY=8 RY=4 ZC=64 AHEAD=3
  sanitize_lesson racecheck stencil.temporal "$size" STEPS=4 TSTEPS=2 TY=16 RY=1 ZC=5 AHEAD=1
done

sanitize_gpu_tests 'AllVariants/VariantOnGpu.*/stencil_temporal:ValidationGpu.*' "VariantOnGpu stencil_temporal, ValidationGpu"
sanitize_finish
