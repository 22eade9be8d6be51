#!/usr/bin/env bash
# Which GPU test leaves the GPU so that later processes fail: their worker prints "hardware
# counters not prepared: cudaMalloc: unspecified launch failure", GL frames take 100+ ms and drags
# seconds. Seen on an H100 (2026-12-05 10:41, the call after the GPU suite's) and on an H200
# (2026-12-05 13:27, the call after StallsGpu.* and ExerciseGpu.AFaultingKernelRestartsTheWorker…,
# still there a few minutes later); never on a fresh machine (docs/benchmarks.md).
# On a FRESH machine, one call: a check (the CLI with counters, whose worker prepares them at
# start: about 3 s when well), then each suspect test alone followed by the check. Strays are
# stopped before each check, so a failing check means the GPU's state, not a process left on it.
# The first check that fails names the test; what follows it is still printed.
# Usage: scripts/gpu_poison_bisect.sh CARRY     (logs under ${OUT:-/tmp}/poison)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
carry=${1:?usage: gpu_poison_bisect.sh CARRY}
out=${OUT:-/tmp}/poison
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export XDG_CACHE_HOME=/tmp/poison-cache XDG_CONFIG_HOME=/tmp/poison-config
. scripts/stray_processes.sh
command -v nvidia-smi > /dev/null || { echo "gpu_poison_bisect: no nvidia-smi, no GPU here"; exit 2; }
rows=()

# check NAME: the CLI with counters; "well" or "POISONED" with why.
check() {
    local name=$1 t0=$SECONDS rc verdict
    local strays; strays=$(stop_tilelab_processes)
    timeout 60 "$carry/tilelab-cli" run 01 --size 1024 > "$out/check_$name.log" 2>&1
    rc=$?
    local took=$((SECONDS - t0))
    verdict=well
    if [ $rc -ne 0 ] || grep -q "not prepared\|unspecified launch failure" "$out/check_$name.log" || [ $took -gt 20 ]; then
        verdict=POISONED
    fi
    local gpu; gpu=$(nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader)
    rows+=("| $name | $verdict | exit $rc in ${took} s | strays stopped: $strays | GPU after: $gpu |")
    echo "check after $name: $verdict (exit $rc, ${took} s)"; grep -E "tilelab-gpu-worker:|error" "$out/check_$name.log" | head -3
}

suspect() {
    local filter=$1 t0=$SECONDS
    timeout 120 "$carry/tests/tilelab_tests" --gtest_filter="$filter" > "$out/test_${filter//[^A-Za-z]/_}.log" 2>&1
    echo "ran $filter: exit $? in $((SECONDS - t0)) s"
    check "$filter"
}

check "nothing"
suspect 'StallsGpu.TheNaiveMatmulWaitsMostlyOnGlobalMemoryInItsOwnFile'
suspect 'StallsGpu.SamplesAndCountersTogetherRunAfterRun'
suspect 'StallsGpu.ACounterPassThatLosesTheContextKeepsTheRunAndTurnsCountersOff'
suspect 'ExerciseGpu.AFaultingKernelRestartsTheWorkerAndSaysSo'
suspect 'ExerciseGpu.AnEndlessLoopIsStoppedAtTheTimeLimitAndTheNextRunWorks'
suspect 'StallsGpu.*:ExerciseGpu.*'
stop_tilelab_processes > /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "| after | check | CLI with counters | | |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
