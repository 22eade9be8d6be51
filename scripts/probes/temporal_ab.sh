#!/usr/bin/env bash
# Lesson 20's candidate kernels (issue 35), made from the patches in this folder and measured
# against the landed kernel in one scripts/ab_kernels.py call (512³ and 768³, 64 steps, the
# lesson's best configuration, two rounds, every run validated), then each candidate under
# compute-sanitizer memcheck and racecheck at 203×97×21 (blocks inside the grid and at its edges),
# as scripts/gpu_sanitize_temporal.sh runs the landed kernel (summary in OUT/summary.txt).
# A candidate is NAME=PATCH[+PATCH...]: the patches (temporal_PATCH.patch) applied in turn to
# kernels/stencil/temporal.cuh. Binaries from scripts/carry_build.sh.
# Usage: scripts/probes/temporal_ab.sh CARRY OUT [NAME=PATCH+PATCH ...]   (default: those owed)
#        MAKE_ONLY=1 makes the candidates under OUT and stops (no GPU: a patch that no longer
#        applies to the landed kernel fails here, as the CPU test that runs it).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
carry=${1:?usage: temporal_ab.sh CARRY OUT [NAME=PATCH+PATCH ...]}
out=${2:?usage: temporal_ab.sh CARRY OUT [NAME=PATCH+PATCH ...]}
shift 2
candidates=("$@")
[ ${#candidates[@]} -gt 0 ] || candidates=(f2=f2 zint=zint zint4=zint4 zint5=zint5 f2z=f2+zint4_after_f2)
mkdir -p "$out/kernels"
labels=()
for c in "${candidates[@]}"; do
  name=${c%%=*} patches=${c#*=}
  file="$out/kernels/temporal_$name.cuh"
  cp kernels/stencil/temporal.cuh "$file"
  for p in ${patches//+/ }; do
    patch -s --no-backup-if-mismatch "$file" "scripts/probes/temporal_$p.patch" > "$out/kernels/$name.patch.log" 2>&1 ||
      { echo "temporal_ab: temporal_$p.patch does not apply for $name (see $out/kernels/$name.patch.log)"; exit 1; }
  done
  labels+=("$name=$file")
done
echo "temporal_ab: ${#labels[@]} candidates made in $out/kernels"
[ -z "${MAKE_ONLY:-}" ] || exit 0

set=(--set STEPS=64 --set TSTEPS=3 --set CX=2 --set RY=6 --set TY=4 --set ZC=64 --set AHEAD=1)
timeout 420 python3 scripts/ab_kernels.py "$carry/tilelab-cli" stencil.temporal "${labels[@]}" --size 512 --size 768 \
  "${set[@]}" --rounds 2 --run-arg=--no-hardware --run-arg=--no-count --out "$out/ab" > "$out/ab.log" 2>&1
echo "ab_kernels: rc=$?"
grep -A40 '^| kernel |' "$out/ab.log"
# shellcheck source=scripts/gpu_sanitize_start.sh
. scripts/gpu_sanitize_start.sh
sanitize_start temporal_ab "$carry" "$out"
export SANITIZE_TIMEOUT=90
for l in "${labels[@]}"; do
  for tool in memcheck racecheck; do
    sanitize_lesson $tool stencil.temporal 203x97x21 "--source=${l#*=}" STEPS=7 TSTEPS=3 TY=4 RY=3 CX=2 ZC=9 AHEAD=2
  done
done
sanitize_finish
