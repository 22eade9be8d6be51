#!/usr/bin/env bash
# A longer fuzz campaign than CI's: the fuzz suites of tilelab_tests (CLI, protocol, worker,
# hostile files, compile cache) run again and again with other seeds (TILELAB_FUZZ_SEED, mixed
# into each suite's fixed seed: tests/common/fuzz_seed.h). Every failing seed's log is kept.
# Usage: scripts/fuzz_campaign.sh BUILD [FIRST_SEED] [COUNT]    e.g. scripts/fuzz_campaign.sh build 1 50
# Logs in /tmp/tilelab-fuzz-campaign (fuzz-SEED.log for each failure); prints one line a seed.
set -uo pipefail
build=${1:?usage: fuzz_campaign.sh BUILD [FIRST_SEED] [COUNT]}
first=${2:-1}
count=${3:-20}
tests="$build/tests/tilelab_tests"
[ -x "$tests" ] || { echo "fuzz_campaign: $tests is missing (build it first)" >&2; exit 2; }
out=/tmp/tilelab-fuzz-campaign; mkdir -p "$out"
failed=0
for ((seed = first; seed < first + count; ++seed)); do
  log="$out/fuzz-$seed.log"
  start=$(date +%s)
  TILELAB_FUZZ_SEED=$seed timeout 900 "$tests" --gtest_filter='*Fuzz*' > "$log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "seed $seed: passed in $(( $(date +%s) - start )) s"
    rm -f "$log"
  else
    failed=$((failed + 1))
    echo "seed $seed: FAILED (exit $rc) in $(( $(date +%s) - start )) s: $log"
    grep -E "^\[  FAILED  \]|Failure|signal|Segmentation" "$log" | head -5
  fi
done
echo "fuzz_campaign: $count seeds from $first, $failed failed"
[ "$failed" -eq 0 ]
