#!/usr/bin/env bash
# The open targets on a GPU not measured before (the H100 half of issues 30, 32-36 and 38), as
# four device calls of at most 9.5 minutes each, in the order that settles the most: a session's
# 30 minutes of device time hold the first three after a cold start (docs/gpu_targets.md gives each
# command's time on the H200). Each part runs its commands one after another (two at once collide
# in CUPTI and in the timings), each under a share of the part's deadline so that the summary
# always comes back; full logs under $OUT/PART, a short table last.
#   suite   the GPU tests (gpu_check.sh tests), then the tensor ladder at 4096³ and 8192³
#   bench   lesson 22 at its best (BF16, FP16), FlashAttention-2 against SDPA (causal and not),
#           temporal blocking against the best single sweep at 512³
#   gui     the app: a drag in every lesson, cold and warm (gpu_gui_check.sh, WALK=0)
#   checks  stall samples against ncu with the sampling cost; the counters against ncu
# The gui part first on a fresh machine, or in a session of its own: after the GPU tests on the
# same machine the app's worker failed (H100 and H200, 2026-12-05; scripts/gpu_poison_bisect.sh).
# Binaries from scripts/carry_build.sh; the gui part also needs DEBS (scripts/gpu_gui_check.sh).
# Usage: scripts/gpu_round.sh PART CARRY [DEBS]      e.g. scripts/gpu_round.sh suite .carry
#        DRY=1 prints the commands with their deadlines instead of running them.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
part=${1:?usage: gpu_round.sh suite|bench|gui|checks CARRY [DEBS]}
carry=${2:?usage: gpu_round.sh PART CARRY [DEBS]}
debs=${3:-.gl-debs}
out=${OUT:-/tmp/tilelab-gpu-round}/$part
mkdir -p "$out"
cli=$carry/tilelab-cli
start=$(date +%s)
budget=${ROUND_BUDGET:-570}   # seconds for the whole part: the device call's 600 less the summary
summary=()

# step NAME SHARE_S CMD...: runs CMD with its output in $out/NAME.log, for at most SHARE_S seconds
# or what is left of the part's budget, whichever is less; notes its time and exit status.
step() {
    local name=$1 share=$2
    shift 2
    local left=$((budget - ($(date +%s) - start)))
    local limit=$((share < left ? share : left))
    if [ "${DRY:-0}" = 1 ]; then
        echo "[$name, at most ${limit} s] $*"
        return
    fi
    if [ "$limit" -le 10 ]; then
        summary+=("| $name | not run: the part's ${budget} s were spent |")
        return
    fi
    local t0 rc
    t0=$(date +%s)
    timeout --kill-after=10 "$limit" "$@" > "$out/$name.log" 2>&1
    rc=$?
    local took=$(($(date +%s) - t0))
    local how="exit $rc"
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && how="cut at ${limit} s"
    summary+=("| $name | $how | ${took} s |")
}

case "$part" in
suite)
    # The issue's limit is 8 minutes: gpu_check.sh stops the tests there and names the one running.
    step gpu_tests 495 env GTEST_FILTER='*Gpu*:*OnGpu*' TEST_TIMEOUT=480 OUT="$out/gpu_check" scripts/gpu_check.sh "$carry" tests
    step ladder_4096 60 python3 scripts/tensor_ladder.py "$cli" "$out/ladder" 4096
    step ladder_8192 80 python3 scripts/tensor_ladder.py "$cli" "$out/ladder" 8192
    ;;
bench)
    step lesson22_best 120 env BENCH_ONLY="EPILOGUE=1 CLUSTER=2" PARTS=bench scripts/gpu_tensor_check.sh 22 "$carry" "$out/l22"
    step attention 200 env PARTS=bench LESSONS=16,16c,15c scripts/gpu_attention_check.sh "$carry" "$out/attention"
    step temporal_512 240 env SIZES=512 scripts/bench_temporal.sh "$carry" "$out/temporal"
    ;;
gui)
    step gui_check 560 env WALK=0 OUT="$out/gui" scripts/gpu_gui_check.sh "$carry" "$debs"
    ;;
checks)
    step stalls 300 python3 scripts/check_stalls.py "$cli" --repeat 2
    step counters 250 python3 scripts/check_counters.py "$cli" --per-variant 1 --ncu-repeat 2 --seed 38 --deadline 230
    ;;
*)
    echo "gpu_round: no part '$part' (suite, bench, gui or checks)" >&2
    exit 2
    ;;
esac
[ "${DRY:-0}" = 1 ] && exit 0

# The tables each command prints last, then one line a step.
for log in "$out"/*.log; do
    echo "== $(basename "$log" .log)"
    tail -n 25 "$log"
done
echo "== gpu_round $part on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(date -u +%F' '%H:%M) UTC"
echo "| step | outcome | time |"
echo "| --- | --- | --- |"
printf '%s\n' "${summary[@]}"
