#!/usr/bin/env bash
# The attention lessons (14, the plain path; 15, online softmax; 16, FlashAttention-2 on tensor cores; issue 34) on the
# GPU machine, in one call:
#   1. the GPU tests of its variant: random valid configurations at odd sizes validated against the
#      double-precision reference, counted == model (VariantOnGpu, HardwareOnGpu with PARTS=hw);
#   2. compute-sanitizer memcheck and racecheck at N and d that no tile divides, every input type;
#   3. the timing table (scripts/bench_attention.py): BH = 64 at N = 4096 (d = 64 and 128) and 2048 (d = 128),
#      against TileLab's unfused cuBLAS path in the same run, and PyTorch's SDPA where installed.
# Binaries from scripts/carry_build.sh (CARRY: tilelab-cli, tilelab-gpu-worker, tests/).
# Usage: scripts/gpu_attention_check.sh CARRY OUT   (logs and JSON into OUT; tables printed last)
#        PARTS="tests sanitize bench" (the default; add hw for the counter test, ncu for lesson 14's
#        DRAM bytes against Nsight Compute) picks what runs,
#        LESSONS=15,16 (the default; 14 adds lesson 14's) which lessons' sanitizer runs and timings (15c, 16c: the
#        causal timings too, 15r lesson 15's rows-per-thread sweep, 15s its SPLIT = 1 sweep; the causal and RPT sanitizer
#        runs come with 15 and 16);
#        TEST_TIMEOUT, SANITIZE_TIMEOUT (per run), BENCH_TIMEOUT bound each part (s).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
carry=${1:?usage: gpu_attention_check.sh CARRY OUT}
out=${2:?usage: gpu_attention_check.sh CARRY OUT}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export TILELAB_CLI="$carry/tilelab-cli"
cli="$carry/tilelab-cli"
parts=${PARTS:-tests sanitize bench}
failed=0
summary=()

if [[ " $parts " == *" tests "* || " $parts " == *" hw "* ]]; then
  filter='AllVariants/VariantOnGpu.ValidatesAndCountsExactlyWhatTheModelSays/attention*'
  [[ " $parts " == *" hw "* ]] && filter+=':EveryVariant/HardwareOnGpu.*/attention*'
  timeout "${TEST_TIMEOUT:-150}" "$carry/tests/tilelab_tests" --gtest_filter="$filter" > "$out/tests.log" 2>&1
  rc=$?
  summary+=("tests: rc=$rc, $(grep -cE '^\[       OK \]' "$out/tests.log") ok, $(grep -cE '^\[  FAILED  \]' "$out/tests.log") failed lines")
  [ $rc -eq 0 ] || failed=1
fi

sanitize() {   # variant tool size sets...
  local variant=$1 tool=$2 size=$3; shift 3
  local sets=() name="${variant#attention.} $tool $size"
  for s in "$@"; do sets+=(--set "$s"); name+=" $s"; done
  # Under racecheck a run is many times slower: lift the worker's 10 s hold limit (the timeout bounds it).
  TILELAB_GPU_HOLD_S=0 timeout "${SANITIZE_TIMEOUT:-60}" /usr/local/cuda/bin/compute-sanitizer --tool "$tool" --target-processes all --error-exitcode 9 \
    "$cli" run "$variant" --size "$size" "${sets[@]}" --reps 1 --warmup 0 --no-reference --no-hardware \
    >>"$out/sanitizer.log" 2>&1
  local rc=$?
  summary+=("$name: rc=$rc")
  [ $rc -eq 0 ] || failed=1
}
lessons=${LESSONS:-15,16}
if [[ " $parts " == *" sanitize "* && ",$lessons," == *",14,"* ]]; then
  sanitize attention.plain memcheck 301x36x3 PREC=fp32 SOFTMAX=1
  sanitize attention.plain racecheck 301x36x3 PREC=bf16 SOFTMAX=2
  sanitize attention.plain memcheck 517x72x2 PREC=fp16 SOFTMAX=0 CAUSAL=1
  sanitize attention.plain racecheck 133x20x1 PREC=fp16 SOFTMAX=1 CAUSAL=1
  sanitize attention.plain synccheck 133x20x1 PREC=fp32 SOFTMAX=2
fi
if [[ " $parts " == *" sanitize "* && ",$lessons," == *",15,"* ]]; then
  sanitize attention.online_softmax memcheck 301x36x3 PREC=fp32 BR=32 BC=16 TPR=1
  sanitize attention.online_softmax racecheck 301x36x3 PREC=bf16 BR=32 BC=16 TPR=1
  sanitize attention.online_softmax memcheck 517x72x2 PREC=fp16 BR=64 BC=32 TPR=2
  sanitize attention.online_softmax racecheck 517x80x2 PREC=fp32 BR=128 BC=64 TPR=4
  sanitize attention.online_softmax memcheck 301x36x3 PREC=bf16 BR=32 BC=16 TPR=1 CAUSAL=1
  sanitize attention.online_softmax memcheck 301x96x2 PREC=fp32 BR=64 BC=16 TPR=8 RPT=4
  sanitize attention.online_softmax racecheck 133x80x1 PREC=bf16 BR=64 BC=16 TPR=4 RPT=2 CAUSAL=1
  sanitize attention.online_softmax memcheck 301x48x3 PREC=fp32 BR=32 BC=16 TPR=4 RPT=2 SPLIT=1
  sanitize attention.online_softmax racecheck 517x96x2 PREC=fp32 BR=64 BC=32 TPR=8 RPT=4 SPLIT=1
  sanitize attention.online_softmax racecheck 301x36x3 PREC=bf16 BR=64 BC=16 TPR=1 RPT=2 SPLIT=1 CAUSAL=1
  sanitize attention.online_softmax memcheck 517x128x2 PREC=fp16 BR=128 BC=64 TPR=16 RPT=8 SPLIT=1 CAUSAL=1
  sanitize attention.online_softmax synccheck 133x64x1 PREC=fp32 BR=128 BC=64 TPR=16 RPT=8 SPLIT=1
fi
if [[ " $parts " == *" sanitize "* && ",$lessons," == *",16,"* ]]; then
  sanitize attention.flash2_mma memcheck 301x64x3 PREC=bf16 BR=64 BC=64 WARPS=4 STAGES=2
  sanitize attention.flash2_mma racecheck 301x64x3 PREC=bf16 BR=64 BC=32 WARPS=4 STAGES=2
  sanitize attention.flash2_mma memcheck 517x128x2 PREC=fp16 BR=128 BC=64 WARPS=8 STAGES=1
  sanitize attention.flash2_mma racecheck 201x32x2 PREC=fp16 BR=128 BC=32 WARPS=4 STAGES=1
  sanitize attention.flash2_mma synccheck 201x32x2 PREC=bf16 BR=64 BC=16 WARPS=2 STAGES=2
  sanitize attention.flash2_mma memcheck 301x64x3 PREC=bf16 BR=64 BC=32 WARPS=4 STAGES=2 CAUSAL=1
  sanitize attention.flash2_mma racecheck 517x128x2 PREC=fp16 BR=128 BC=64 WARPS=8 STAGES=2 CAUSAL=1
fi

if [[ " $parts " == *" bench "* ]]; then
  timeout "${BENCH_TIMEOUT:-240}" python3 scripts/bench_attention.py "$cli" "$out" "$lessons" > "$out/bench.txt" 2> "$out/bench.err"
  rc=$?
  summary+=("bench: rc=$rc")
  [ $rc -eq 0 ] || failed=1
fi

if [[ " $parts " == *" ncu "* ]]; then   # lesson 14's DRAM bytes against Nsight Compute (scripts/ncu_passes.py)
  timeout "${NCU_TIMEOUT:-240}" python3 scripts/ncu_passes.py "$cli" "$out" /usr/local/cuda/bin/ncu > "$out/ncu.txt" 2> "$out/ncu.err"
  rc=$?
  summary+=("ncu: rc=$rc")
  [ $rc -eq 0 ] || failed=1
fi

echo "== gpu_attention_check ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(date -u '+%Y-%m-%d %H:%M UTC')) =="
printf '%s\n' "${summary[@]}"
[ -s "$out/bench.txt" ] && cat "$out/bench.txt"
[ -s "$out/bench.txt" ] || grep -v '^+ ' "$out/bench.err" 2>/dev/null | tail -20
[ -s "$out/ncu.txt" ] && cat "$out/ncu.txt"
exit $failed
