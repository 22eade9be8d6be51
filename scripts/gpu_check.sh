#!/usr/bin/env bash
# The GPU check: the one script to run on the GPU machine. It takes a build folder made with
#   cmake -S . -B build-gpu -DTILELAB_GUI=OFF -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu
# (here or on another machine with the same CUDA version; to carry it, scripts/carry_build.sh
# copies what the tests need in the same layout: build-gpu/tilelab-cli, build-gpu/tilelab-gpu-worker
# (the child process that runs every kernel; it must stay next to the CLI, one folder above the
# tests), build-gpu/tests/tilelab_tests and its helpers exercise_typist and fake_gpu_worker beside
# it, which the tests find there (tests/common/helpers.h), a few MB each in Release), then
#   1. shows the GPU (nvidia-smi),
#   2. checks that the binaries need nothing but libc/libstdc++/libm/libgcc and CUDA's own libraries,
#   3. runs every test (GPU tests included) with --gtest_brief,
#   4. runs the benchmarks that exist (scripts/bench_*.sh: matmul, matmul_register, stencil, compile),
# logging each step to $OUT/ and carrying on after a failure; a summary table comes last.
# Exit status: non-zero if the tests (or the library check) failed.
#
# Usage: scripts/gpu_check.sh BUILD_DIR [all|tests|tests:K/N|bench|bench_NAME]   (logs: $OUT, default /tmp/tilelab-gpu-check)
#   Each device command may run 10 minutes: run "tests" and "bench" (or one bench_NAME) separately.
#   tests:K/N runs the K-th of N shards of the tests (googletest's sharding): on an H100 the whole
#   suite ran past 540 s twice (2026-11-24), so run tests:1/3, tests:2/3 and tests:3/3 in three
#   calls, one after another (two at once on one host collide in CUPTI). The summary names the
#   slowest tests of the run, and the one that was running if the shard timed out.
# Env:   TEST_TIMEOUT (s, default 540), BENCH_TIMEOUT (s per script, default 300),
#        GTEST_FILTER (passed to the tests, e.g. '*Gpu*')
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${1:?usage: scripts/gpu_check.sh BUILD_DIR [all|tests|bench|bench_NAME]}
what=${2:-all}
build=$(cd "$build" && pwd) || { echo "gpu_check: no build folder $1" >&2; exit 2; }
out=${OUT:-/tmp/tilelab-gpu-check}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# CUDA's libraries from the toolkit here, whatever RUNPATH the build machine wrote.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The tests that run the CLI find it here (the build folder's path differs from the build machine's).
export TILELAB_CLI="$build/tilelab-cli"

cli="$build/tilelab-cli"
worker="$build/tilelab-gpu-worker"
tests="$build/tests/tilelab_tests"
summary=()   # "step|status|detail"
tests_failed=0

add() { summary+=("$1|$2|$3"); }

# After a step, TileLab processes it left running are stopped and noted. Usage: stop_strays STEP
. scripts/stray_processes.sh
stop_strays() {
  local n
  n=$(stop_tilelab_processes)
  [ "$n" -eq 0 ] || add "$1: left running" "note" "stopped $n TileLab processes the step left behind"
}

# ---- 1. the GPU ---------------------------------------------------------------------------
if command -v nvidia-smi >/dev/null; then
  nvidia-smi > "$out/nvidia-smi.log" 2>&1
  gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
  add "nvidia-smi" "ok" "${gpu:-see nvidia-smi.log}"
else
  add "nvidia-smi" "missing" "no nvidia-smi on PATH"
fi

# ---- 2. what the binaries load ------------------------------------------------------------
allowed='linux-vdso|ld-linux|libc\.so|libm\.so|libstdc\+\+|libgcc_s|libdl\.so|libpthread|librt\.so|libcudart|libnvrtc|libcublas|libcublasLt'
ldd_status=ok
ldd_detail=""
: > "$out/ldd.log"
for bin in "$cli" "$worker" "$tests"; do
  if [ ! -x "$bin" ]; then
    ldd_status=FAIL; ldd_detail+="$(basename "$bin") missing; "; continue
  fi
  ldd "$bin" > "$out/ldd.tmp" 2>&1
  { echo "== $bin"; cat "$out/ldd.tmp"; } >> "$out/ldd.log"
  missing=$(grep 'not found' "$out/ldd.tmp" | awk '{print $1}' | tr '\n' ' ')
  extra=$(grep -vE "$allowed" "$out/ldd.tmp" | awk '{print $1}' | tr '\n' ' ')
  outside=$(grep -E 'libcudart|libnvrtc|libcublas' "$out/ldd.tmp" | grep -v '/usr/local/cuda' | awk '{print $1}' | tr '\n' ' ')
  [ -z "$missing" ] || { ldd_status=FAIL; ldd_detail+="$(basename "$bin"): not found: $missing; "; }
  [ -z "$extra" ] || { ldd_status=FAIL; ldd_detail+="$(basename "$bin"): unexpected: $extra; "; }
  [ -z "$outside" ] || ldd_detail+="$(basename "$bin"): CUDA libs outside /usr/local/cuda: $outside; "
done
rm -f "$out/ldd.tmp"
add "libraries (ldd)" "$ldd_status" "${ldd_detail:-only libc/libstdc++/libm/libgcc and cudart, nvrtc, cublas}"
[ "$ldd_status" = ok ] || tests_failed=1

# ---- 3. the tests -------------------------------------------------------------------------
shard=""
if [[ "$what" =~ ^tests:([0-9]+)/([0-9]+)$ ]]; then
  shard="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
  export GTEST_SHARD_INDEX=$((BASH_REMATCH[1] - 1)) GTEST_TOTAL_SHARDS=${BASH_REMATCH[2]}
  what=tests
fi
if [ "$what" = all ] || [ "$what" = tests ]; then
  # The CLI tests run the CLI at the path the build machine compiled in; where this checkout
  # lives elsewhere, put a link there (this is a scratch machine).
  compiled_cli=$(grep -aoE '/[A-Za-z0-9_./+-]*/tilelab-cli' "$tests" 2>/dev/null | head -1)
  if [ -n "$compiled_cli" ] && [ ! -e "$compiled_cli" ] && [ -x "$cli" ]; then
    if mkdir -p "$(dirname "$compiled_cli")" 2>/dev/null && ln -s "$cli" "$compiled_cli" 2>/dev/null; then
      add "CLI path" "note" "linked $compiled_cli -> $cli for the CLI tests"
    else
      add "CLI path" "note" "the CLI tests expect $compiled_cli, which does not exist here"
    fi
  fi
  if [ -x "$tests" ]; then
    # A filled compile cache (an earlier call on the same machine) makes the suite several times
    # faster (182 s against 435-467 s on an H200, docs/benchmarks.md): say which case this is.
    cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/tilelab"
    cached=$(find "$cache_dir" -type f 2>/dev/null | wc -l)
    if [ "$cached" -eq 0 ]; then
      add "compile cache" "note" "empty before the tests: every kernel compiled in this call"
    else
      add "compile cache" "note" "$cached files in $cache_dir before the tests: a warm run, faster than a cold one"
    fi
    start=$SECONDS
    timeout "${TEST_TIMEOUT:-540}" "$tests" --gtest_color=no ${GTEST_FILTER:+--gtest_filter="$GTEST_FILTER"} \
      > "$out/tests.log" 2>&1
    rc=$?
    secs=$((SECONDS - start))
    passed=$(grep -m1 -oE '\[  PASSED  \] [0-9]+' "$out/tests.log" | grep -oE '[0-9]+$')
    failed=$(grep -m1 -oE '\[  FAILED  \] [0-9]+ test' "$out/tests.log" | grep -oE '[0-9]+')
    skipped=$(grep -m1 -oE '\[  SKIPPED \] [0-9]+' "$out/tests.log" | grep -oE '[0-9]+$')
    detail="${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped in ${secs}s"
    if [ $rc -eq 124 ]; then
      # The test that was running when time ran out: the last one started and never finished.
      running=$(awk '/^\[ RUN      \]/ {t=$4} /^\[       OK \]|^\[  FAILED  \]|^\[  SKIPPED \]/ {if ($4 == t) t=""} END {print t}' "$out/tests.log")
      detail="TIMED OUT after ${secs}s${running:+ in $running}; $detail"
    fi
    if [ $rc -ne 0 ]; then
      tests_failed=1
      names=$(grep -E '^\[  FAILED  \] [A-Za-z]' "$out/tests.log" | sed -E 's/^\[  FAILED  \] //; s/ \(.*//; s/, where .*//' | sort -u | head -8 | tr '\n' ' ')
      add "tests" "FAIL (exit $rc)" "$detail${names:+: $names}"
    else
      add "tests" "ok" "$detail"
    fi
    [ -z "$shard" ] || add "tests shard" "note" "shard $shard of the suite"
    slowest=$(sed -nE 's/^\[       OK \] ([^ ,]+).* \(([0-9]+) ms\)$/\2 \1/p' "$out/tests.log" | sort -rn | head -5 |
              awk '{printf "%s %.0f s; ", $2, $1 / 1000}')
    [ -z "$slowest" ] || add "tests: slowest" "note" "$slowest"
    stop_strays "tests"
    # Why tests skipped (on a GPU machine, "no GPU" here means something is wrong).
    reasons=$(grep -A1 -E ': Skipped$' "$out/tests.log" | grep -vE -- '^--$|: Skipped$' | cut -c1-70 | sort | uniq -c |
              sort -rn | head -4 | awk '{n=$1; $1=""; printf "%s×%s; ", n, $0}')
    [ -z "$reasons" ] || add "tests skipped" "note" "$reasons"
  else
    tests_failed=1
    add "tests" "FAIL" "$tests not found"
  fi
fi

# ---- 4. the benchmarks --------------------------------------------------------------------
bench_tables=()
if [ "$what" = all ] || [ "$what" = bench ] || [[ "$what" == bench_* ]]; then
  # The known ones first, in this order, then any other scripts/bench_*.sh; or just the one named.
  bench_names=(bench_matmul bench_matmul_register bench_stencil bench_compile)
  for f in scripts/bench_*.sh; do
    n=$(basename "$f" .sh)
    [[ " ${bench_names[*]} " == *" $n "* ]] || bench_names+=("$n")
  done
  [[ "$what" == bench_* ]] && bench_names=("$what")
  for name in "${bench_names[@]}"; do
    script="scripts/$name.sh"
    if [ ! -f "$script" ]; then
      add "$name" "absent" "$script not written yet"
      continue
    fi
    # What each script takes: the build folder, except bench_matmul_register.sh and
    # bench_matmul_warp.sh (the CLI's path)
    # and bench_compile.sh (an arch and a count; the folder comes from $BUILD). Raw output of
    # scripts that keep some goes to $OUT/NAME.d.
    case $name in
      bench_matmul_register|bench_matmul_warp) args=("$cli") ;;
      bench_compile) args=() ;;
      *) args=("$build") ;;
    esac
    start=$SECONDS
    BUILD="$build" OUT="$out/$name.d" timeout "${BENCH_TIMEOUT:-300}" bash "$script" "${args[@]}" > "$out/$name.log" 2>&1
    rc=$?
    stop_strays "$name"
    secs=$((SECONDS - start))
    if [ $rc -eq 0 ]; then add "$name" "ok" "${secs}s, table in $name.log"
    elif [ $rc -eq 124 ]; then add "$name" "TIMED OUT" "after ${secs}s, see $name.log"
    else add "$name" "FAIL (exit $rc)" "$(grep -v '^$' "$out/$name.log" | tail -1 | cut -c1-100)"; fi
    # The script's last table (from its last "## " heading on).
    bench_tables+=("$(awk '/^## /{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' "$out/$name.log")")
  done
fi

# ---- summary, last ----------------------------------------------------------------------
for t in "${bench_tables[@]}"; do
  [ -n "$t" ] && printf '%s\n' "$t"
done
echo
echo "## GPU check summary ($(date -u '+%Y-%m-%d %H:%M UTC'), logs in $out)"
echo
echo "| step | status | detail |"
echo "| --- | --- | --- |"
for row in "${summary[@]}"; do
  IFS='|' read -r step status detail <<< "$row"
  echo "| $step | $status | $detail |"
done
exit $tests_failed
