#!/usr/bin/env bash
# Stall sampling (issue 33) on the GPU machine, in one call of about 7 minutes:
#   1. every lesson default against Nsight Compute with the worker's period check on
#      (TILELAB_PC_SAMPLING_CHECK=1: half the launches at 2^P, half at 2^(P+1), a third share at
#      2^(P+2) where they disagree): scripts/check_stalls.py --skip-timing, files kept;
#   2. the stall GPU tests (StallsGpu*), the period check's included;
#   3. matmul.tma_wgmma with an idle gap of 1 and 5 ms after each sampled launch
#      (TILELAB_PCSAMP_GAP_MS; 20 ms closed most of its difference from ncu, docs/benchmarks.md);
#   4. the SM clock (nvidia-smi every 20 ms) during 60,000 back-to-back launches of it, against
#      the 1.72 GHz ncu's launches ran at.
# Binaries from scripts/carry_build.sh. Usage: scripts/gpu_stall_check.sh CARRY (logs and keep.tgz,
# the kept files packed, into $OUT, else /tmp/tilelab-stall-check; the tables are printed last).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/gpu_check_start.sh
. scripts/gpu_check_start.sh
gpu_check_start stall_check "$@"
export TILELAB_CLI="$cli"
stamp() { echo "$1 $(date -u +%H:%M:%S)" >> "$out/times.txt"; }
stamp start
TILELAB_PC_SAMPLING_CHECK=1 python3 scripts/check_stalls.py "$cli" --skip-timing --keep "$out/k" > "$out/cs_all.txt" 2>&1
stamp check_stalls
GTEST_FILTER='StallsGpu*' "$build/tests/tilelab_tests" > "$out/gtest.txt" 2>&1
echo "gtest exit $?" >> "$out/times.txt"
for g in 1 5; do
  TILELAB_PCSAMP_GAP_MS=$g python3 scripts/check_stalls.py "$cli" --skip-timing --variants matmul.tma_wgmma \
    --keep "$out/gap$g" > "$out/cs_gap$g.txt" 2>&1
done
stamp gaps
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader -lms 20 > "$out/clock.txt" 2>&1 &
smi=$!
sleep 0.5
"$cli" run matmul.tma_wgmma --no-hardware --no-reference --no-flush --reps 60000 > "$out/long_run.txt" 2>&1
sleep 0.5
kill "$smi" 2>/dev/null
stamp clock
(cd "$out" && tar czf keep.tgz k gap1 gap5 && rm -rf k gap1 gap5)
echo "== the stall GPU tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/gtest.txt"
echo "== SM clock (MHz) during back-to-back launches: samples per value"
awk -F, '{print $1}' "$out/clock.txt" | sort | uniq -c | sort -rn | head -5
for g in 1 5; do echo "== matmul.tma_wgmma, ${g} ms idle after each sampled launch"; grep "^| matmul.tma_wgmma" "$out/cs_gap$g.txt" | tail -1; done
echo "== every lesson default, the period check on"; sed -n '/^| variant | samples/,$p' "$out/cs_all.txt"
cat "$out/times.txt"
