#!/usr/bin/env bash
# Stall sampling (issue 33) on the GPU machine, in one call of about 8 minutes, with the worker's
# defaults (the period check on, 16 MB buffer, launches back to back):
#   1. every lesson default against Nsight Compute: scripts/check_stalls.py --skip-timing, files
#      kept (about 5.5 minutes on an H100, 2026-12-06);
#   2. the stall GPU tests (StallsGpu*);
#   3. every stall claim of the lessons measured again at its step and size
#      (scripts/measure_stall_claims.py, 74 s on an H100);
#   4. matmul.tma_wgmma, the one default that differs from ncu, back to back and with the launches
#      each waited for (TILELAB_PCSAMP_APART=1), which brought it closer on an H200 (2026-12-05)
#      and further on an H100 (2026-12-06).
# The app's side (stall bars within 1 s of the release) is the GUI check's:
# `LESSONS="13 15 20" WALK=0 scripts/gpu_gui_check.sh CARRY DEBS`.
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
python3 scripts/check_stalls.py "$cli" --skip-timing --keep "$out/k" > "$out/cs_all.txt" 2>&1
stamp check_stalls
GTEST_FILTER='StallsGpu*' "$build/tests/tilelab_tests" > "$out/gtest.txt" 2>&1
echo "gtest exit $?" >> "$out/times.txt"
python3 scripts/measure_stall_claims.py "$cli" --json "$out/claims.json" > "$out/claims.txt" 2> "$out/claims.err"
stamp claims
TILELAB_PCSAMP_APART=1 python3 scripts/check_stalls.py "$cli" --skip-timing --variants matmul.tma_wgmma \
  > "$out/cs_apart.txt" 2>&1
stamp apart
(cd "$out" && tar czf keep.tgz k && rm -rf k)
echo "== the stall GPU tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/gtest.txt"
echo "== the lessons' stall claims, measured now"; cat "$out/claims.txt"
echo "== matmul.tma_wgmma, each sampled launch waited for"; grep "^| matmul.tma_wgmma" "$out/cs_apart.txt" | tail -1
echo "== every lesson default"; sed -n '/^| variant | samples/,$p' "$out/cs_all.txt"
cat "$out/times.txt"
