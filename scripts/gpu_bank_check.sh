#!/usr/bin/env bash
# Issue #15 on the GPU machine: shared-memory banks, modelled and measured.
#  1. compute-sanitizer memcheck + racecheck on the transpose kernel (lesson 03) at odd sizes;
#  2. the GPU tests of the transpose (exact validation, counted == model, hardware wavefronts ==
#     the bank model) and the generic validation/count tests;
#  3. the transpose at 8192² for each PAD / SWIZZLE / VEC: ms, % of the device copy, bank
#     conflicts and wavefronts (model and hardware) -> OUT/transpose.csv;
#  4. a few configurations of every shared-memory variant: model against hardware, instructions,
#     wavefronts and conflicts for loads and stores -> OUT/sites.csv (per-site model in the JSON).
# Prints a short table last. About 3-5 minutes on an H100.
# Env: ONLY=REGEX runs only the table rows whose label matches (no sanitizer, no tests), e.g.
#      ONLY='^06 ' for lesson 06's sites in a short session.
# Usage: scripts/gpu_bank_check.sh BUILD_DIR [OUT]   (BUILD_DIR holds tilelab-cli, tilelab-gpu-worker,
#        tests/tilelab_tests; exit 0 only if every check passed)
set -uo pipefail
build=${1:?usage: gpu_bank_check.sh BUILD_DIR [OUT]}
out=${2:-bank_check_out}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cli="$build/tilelab-cli"
tests="$build/tests/tilelab_tests"
sanitizer=/usr/local/cuda/bin/compute-sanitizer
failed=0
summary="$out/summary.txt"
: > "$summary"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$summary"
date -u +"%Y-%m-%d %H:%M UTC" | tee -a "$summary"

# ---- 1. sanitizer ---------------------------------------------------------------------------
sanitize() {   # tool size params...
  [ -z "${ONLY:-}" ] || return 0
  local tool=$1 size=$2; shift 2
  local sets=() name="$tool $size"
  for s in "$@"; do sets+=(--set "$s"); name+=" $s"; done
  "$sanitizer" --tool "$tool" --target-processes all --error-exitcode 9 \
    "$cli" run 03 --size "$size" "${sets[@]}" --reps 1 --warmup 0 --no-reference --no-hardware \
    >>"$out/sanitizer.log" 2>&1
  local rc=$?
  echo "sanitizer $name: rc=$rc" | tee -a "$summary"
  [ $rc -eq 0 ] || failed=1
}
sanitize memcheck 37x1001x1 TILE=32 PAD=0 SWIZZLE=0 VEC=1
sanitize memcheck 37x1001x1 TILE=64 PAD=3 SWIZZLE=1 VEC=1
sanitize memcheck 36x1000x1 TILE=16 PAD=1 SWIZZLE=0 VEC=4
sanitize memcheck 130x66x1 TILE=8 PAD=2 SWIZZLE=1 VEC=2
sanitize racecheck 37x1001x1 TILE=32 PAD=1 SWIZZLE=0 VEC=1
sanitize racecheck 36x1000x1 TILE=32 PAD=0 SWIZZLE=1 VEC=4

# ---- 2. GPU tests -----------------------------------------------------------------------------
if [ -z "${ONLY:-}" ]; then
  "$tests" --gtest_filter='TransposeGpu.*:*OnGpu*.*/transpose_smem' >"$out/gpu_tests.log" 2>&1
  rc=$?
  echo "gpu tests (transpose): rc=$rc, $(grep -c '^\[       OK' "$out/gpu_tests.log") ok, $(grep -c '^\[  FAILED' "$out/gpu_tests.log") failed lines" | tee -a "$summary"
  grep -E "conflicts ld" "$out/gpu_tests.log" | tee -a "$summary"
  [ $rc -eq 0 ] || failed=1
fi

# ---- 3 and 4: runs with the hardware counters --------------------------------------------------
# One run as JSON; a CSV row: label, ms, % of copy, then model and hardware per op.
row() {   # csv label variant size params...
  local csv=$1 label=$2 variant=$3 size=$4; shift 4
  [ -z "${ONLY:-}" ] || grep -qE "$ONLY" <<<"$label" || return 0
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  local json="$out/run-$(echo "$label" | tr ' =/' '__-').json"
  "$cli" run "$variant" --size "$size" "${sets[@]}" --reps 20 --json >"$json" 2>>"$out/runs.err" || failed=1
  python3 - "$json" "$label" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); h = j.get("hardware") or {}; b = j["model"]["banks"]
def hw(k):
    v = h.get(k)
    return "" if v is None else "%.0f" % v
cells = [sys.argv[2], "%.4f" % (j.get("median_ms") or 0), "%.1f" % (j.get("pct_of_reference") or 0),
         "ok" if (j.get("validation") or {}).get("passed") else "FAIL"]
for op, name in (("ld", "load"), ("st", "store")):
    cells += ["%.0f" % b[name + "_instructions"], hw("smsp__inst_executed_op_shared_%s.sum" % op),
              "%.0f" % b[name + "_wavefronts"], hw("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % op),
              "%.0f" % b[name + "_conflicts"], hw("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum" % op)]
print(",".join(cells))
PY
}
header="config,ms,pct_of_copy,valid,ld_instr_model,ld_instr_hw,ld_wavefronts_model,ld_wavefronts_hw,ld_conflicts_model,ld_conflicts_hw,st_instr_model,st_instr_hw,st_wavefronts_model,st_wavefronts_hw,st_conflicts_model,st_conflicts_hw"
echo "$header" > "$out/transpose.csv"
for vec in 1 2 4; do
  for cfg in "PAD=0 SWIZZLE=0" "PAD=1 SWIZZLE=0" "PAD=2 SWIZZLE=0" "PAD=4 SWIZZLE=0" "PAD=0 SWIZZLE=1"; do
    row "$out/transpose.csv" "T32 VEC=$vec $cfg" 03 8192x8192x1 TILE=32 VEC=$vec $cfg
  done
done
row "$out/transpose.csv" "T64 VEC=4 PAD=0 SWIZZLE=1" 03 8192x8192x1 TILE=64 VEC=4 PAD=0 SWIZZLE=1
row "$out/transpose.csv" "T16 VEC=1 PAD=0 SWIZZLE=0" 03 8192x8192x1 TILE=16 VEC=1 PAD=0 SWIZZLE=0

echo "$header" > "$out/sites.csv"
row "$out/sites.csv" "02 TILE=32 PAD=0" 02 2048 TILE=32 PAD=0
row "$out/sites.csv" "02 TILE=32 PAD=1" 02 2048 TILE=32 PAD=1
row "$out/sites.csv" "02 TILE=16 PAD=1" 02 2048 TILE=16 PAD=1
row "$out/sites.csv" "04 T=64 U=16 S=4" 04 2048 T=64 U=16 S=4
row "$out/sites.csv" "05 default (PAD=4)" 05 2048
row "$out/sites.csv" "05 PAD=0" 05 2048 PAD=0
row "$out/sites.csv" "05 TRANSPOSE_A=0" 05 2048 TRANSPOSE_A=0
row "$out/sites.csv" "05 TRANSPOSE_A=0 PAD=0" 05 2048 TRANSPOSE_A=0 PAD=0
row "$out/sites.csv" "05 PAD=2" 05 2048 PAD=2
# small sizes, where the hardware counts no L1-traffic replays: model == hardware expected
row "$out/sites.csv" "02 256 TILE=32 PAD=0" 02 256 TILE=32 PAD=0
row "$out/sites.csv" "05 256 default" 05 256
# the warp-tiled kernel (lesson 06): fragment reads at the least wavefronts; its copies are st.shared
# at STAGES=1 but cp.async (LDGSTS, not counted as shared stores by the hardware) at STAGES>1
row "$out/sites.csv" "06 default (cp.async)" 06 2048
row "$out/sites.csv" "06 STAGES=1" 06 2048 STAGES=1
row "$out/sites.csv" "06 256 STAGES=1" 06 256 STAGES=1
# the stencils' shared sites (halo loads, neighbour reads), at an odd size and a larger one
for l in stencil.smem_tiled stencil.coarsened stencil.register_tiled; do
  row "$out/sites.csv" "$l 33 default" $l 33
  row "$out/sites.csv" "$l 256 default" $l 256
done
# the register-tiled kernel's float2 and float4 pieces (VX): vector stores and loads of a row
row "$out/sites.csv" "stencil.register_tiled 36 VX=2" stencil.register_tiled 36 TX=64 TY=4 RY=2 Z=4 HALO=1 VX=2
row "$out/sites.csv" "stencil.register_tiled 256 VX=4" stencil.register_tiled 256 TX=128 TY=4 RY=1 Z=8 HALO=1 VX=4
row "$out/sites.csv" "stencil.register_tiled 68x37x11 VX=4" stencil.register_tiled 68x37x11 TX=64 TY=8 RY=1 Z=3 HALO=1 VX=4
# lesson 19: the convolution's tile fill and tap reads (two-way at BX=8) and the shared bank's reads
row "$out/sites.csv" "19 256 default" 19 256x256x1
row "$out/sites.csv" "19 256 BX=8 BY=8 shared per_lane" 19 256x256x1 BX=8 BY=8 FILTER_IN=shared INDEX=per_lane
row "$out/sites.csv" "19 256 shared FILTERS=1" 19 256x256x1 FILTER_IN=shared FILTERS=1
row "$out/sites.csv" "19 333x77 BX=16 BY=4 RADIUS=3 shared" 19 333x77x1 BX=16 BY=4 RADIUS=3 FILTER_IN=shared FILTERS=8
row "$out/sites.csv" "19 200x90 BX=64 BY=2 shared per_lane" 19 200x90x1 BX=64 BY=2 FILTER_IN=shared FILTERS=16 INDEX=per_lane
row "$out/sites.csv" "19 97x31 BX=8 BY=2 RADIUS=4 shared" 19 97x31x1 BX=8 BY=2 RADIUS=4 FILTER_IN=shared FILTERS=32
row "$out/sites.csv" "19 4096 default" 19 4096x4096x1
# Lesson 15: SPLIT 0 (four wavefronts a float4 read from TPR = 4) and SPLIT 1's paired lanes (two);
# BF16 inputs so that SPLIT 1's staging is plain shared stores (FP32's are cp.async: ldgsts).
row "$out/sites.csv" "15 1024x64x8 default" 15 1024x64x8 PREC=fp32
row "$out/sites.csv" "15 1024x64x8 SPLIT=1" 15 1024x64x8 PREC=bf16 SPLIT=1 BR=64 BC=32 TPR=8 RPT=4
row "$out/sites.csv" "15 1024x128x8 SPLIT=1 BR128" 15 1024x128x8 PREC=bf16 SPLIT=1 BR=128 BC=64 TPR=16 RPT=8

# ---- the table, last ---------------------------------------------------------------------------
echo
cat "$summary"
for f in transpose sites; do
  echo
  echo "== $f (model vs hardware; conflicts = wavefronts beyond the conflict-free minimum) =="
  python3 - "$out/$f.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fmt = "%-26s %8s %6s %5s |" + " %10s" * 6 + " |" + " %10s" * 6
print(fmt % ("config", "ms", "%copy", "valid", "ld ins mdl", "ld ins hw", "ld wav mdl", "ld wav hw", "ld cf mdl", "ld cf hw",
             "st ins mdl", "st ins hw", "st wav mdl", "st wav hw", "st cf mdl", "st cf hw"))
for r in rows:
    print(fmt % tuple([r["config"], r["ms"], r["pct_of_copy"], r["valid"]] +
          [r["%s_%s_%s" % (op, q, w)] for op in ("ld", "st") for q in ("instr", "wavefronts", "conflicts") for w in ("model", "hw")]))
PY
done
echo
[ $failed -eq 0 ] && echo "gpu_bank_check: all passed" || echo "gpu_bank_check: FAILED (see $out)"
exit $failed
