#!/usr/bin/env bash
# Issue 16's target on the GPU machine: an edit of the exercise (the completed tiled matmul at
# 1024³) to its compiled and validated result, as the app's quick pass runs it: NVRTC compile,
# the worker's validated, timed run. Prints the per-edit stages and a table last.
# Usage: scripts/bench_exercise.sh BUILD_DIR   (BUILD_DIR holds tests/tilelab_tests and the CLI)
set -uo pipefail
build=${1:?usage: bench_exercise.sh BUILD_DIR}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=$(mktemp)
"$build/tests/tilelab_tests" --gtest_filter='ExerciseGpu.EditsOfTheTiledMatmulAt1024Cubed*' >"$log" 2>&1
rc=$?
grep -E '^edit [0-9]|Skipped|no GPU|FAILED' "$log"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
line=$(grep -E '^exercise edit' "$log")
echo "## Exercise: edit -> validated result (${gpu:-no GPU}, $(date -u +'%Y-%m-%d %H:%M UTC'))"
echo "| kernel | median | worst | target |"
echo "| --- | ---: | ---: | ---: |"
if [ -n "$line" ]; then
  med=$(sed -E 's/.*median ([0-9]+) ms.*/\1/' <<<"$line"); worst=$(sed -E 's/.*worst ([0-9]+) ms.*/\1/' <<<"$line")
  echo "| matmul.smem_tiled 1024³, 5 edits | $med ms | $worst ms | ≤ 400 ms: $([ "$med" -le 400 ] && echo met || echo MISSED) |"
else
  echo "| matmul.smem_tiled 1024³ | not measured | | ≤ 400 ms |"
fi
rm -f "$log"
exit $rc
