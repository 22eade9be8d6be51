#!/usr/bin/env bash
# The WMMA tensor-core lesson (lesson 12, issue 32) on the GPU machine, in one call:
#   1. compute-sanitizer memcheck and racecheck at odd sizes (M, N, K not multiples of the tiles;
#      N odd: element-wise copies and edge stores through the warps' scratch; N % 8 == 0 with M, K
#      odd: 16-byte copies with zero-filled tails) for every precision, STAGES 1 and 3;
#   2. timings at 4096³ (and 8192³ for BF16): every precision at the defaults and a few shapes,
#      each validated against cuBLAS at the same precision measured in the same run (L2 flushed);
#   3. Nsight Compute on the default BF16 kernel at 4096³: tensor pipe, issue slots, stalls,
#      shared-memory wavefronts, DRAM throughput (what limits it).
# Binaries from scripts/carry_build.sh (CARRY: tilelab-cli, tilelab-gpu-worker).
# Usage: scripts/gpu_wmma_check.sh CARRY OUT    (logs and JSON into OUT; the table printed last)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
carry=${1:?usage: gpu_wmma_check.sh CARRY OUT}
out=${2:?usage: gpu_wmma_check.sh CARRY OUT}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cli="$carry/tilelab-cli"
failed=0
: > "$out/sanitizer.txt"

sanitize() {   # tool size sets...
  local tool=$1 size=$2; shift 2
  local sets=() name="$tool $size"
  for s in "$@"; do sets+=(--set "$s"); name+=" $s"; done
  /usr/local/cuda/bin/compute-sanitizer --tool "$tool" --target-processes all --error-exitcode 9 \
    "$cli" run 12 --size "$size" "${sets[@]}" --reps 1 --warmup 0 --no-reference >>"$out/sanitizer.log" 2>&1
  local rc=$?
  echo "$name: rc=$rc" >> "$out/sanitizer.txt"
  [ $rc -eq 0 ] || failed=1
}
for prec in tf32 bf16 fp16; do
  sanitize memcheck 301x299x303 PREC=$prec STAGES=1
  sanitize racecheck 301x299x303 PREC=$prec STAGES=3
  sanitize memcheck 257x264x131 PREC=$prec STAGES=3
  sanitize racecheck 129x136x67 PREC=$prec BM=64 BN=64 WM=32 WN=32 BK=16 STAGES=2
done

python3 - "$cli" "$out" <<'PY' > "$out/bench.txt" 2>&1
import sys
sys.path.insert(0, "scripts")
import bench_cli
from bench_cli import sets
cli, out = sys.argv[1], sys.argv[2]
rows = []
def run(prec, params, size, label):
    p = dict(params, PREC=prec)
    rc, j = bench_cli.call(cli, out, ["run", "12", "--size", str(size), "--reps", "20"] + sets(p),
                           f"{prec}-{size}-" + "-".join(f"{k}{v}" for k, v in params.items()))
    ok = j is not None and j.get("ok") and j.get("measured") and (j.get("validation") or {}).get("passed")
    if not ok:
        why = "no JSON" if j is None else (j.get("error") or (j.get("validation") or {}).get("message") or f"exit {rc}")
        rows.append([prec, str(size), label, "FAIL", why[:60], "", "", ""]); return
    t = j["median_ms"]; ref = j.get("reference_ms")
    rows.append([prec, str(size), label, f"{t:.3f}", f"{j['flops'] / (t * 1e-3) / 1e12:.1f}",
                 f"{ref:.3f}" if ref else "-", f"{100 * ref / t:.1f}" if ref else "-", str(j.get("registers", "-"))])
shapes = [({}, "defaults 128x128 64x32 BK32 S2"),
          ({"STAGES": 1}, "STAGES=1"), ({"STAGES": 3}, "STAGES=3"), ({"STAGES": 4}, "STAGES=4"),
          ({"BK": 16}, "BK=16"), ({"WM": 64, "WN": 64}, "warps 64x64 (4 warps)"),
          ({"BN": 256, "WM": 64, "WN": 64}, "128x256 64x64"), ({"BM": 64, "BN": 64, "WM": 32, "WN": 32}, "64x64 32x32")]
for prec in ["bf16", "fp16", "tf32"]:
    for params, label in (shapes if prec == "bf16" else shapes[:3]):
        run(prec, params, 4096, label)
run("bf16", {}, 8192, "defaults")
run("bf16", {"BN": 256, "WM": 64, "WN": 64}, 8192, "128x256 64x64")
head = ["prec", "size", "config", "ms", "TFLOP/s", "cuBLAS ms", "% cuBLAS", "regs"]
w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(c.ljust(w[i]) for i, c in enumerate(r)))
PY

# What limits the default BF16 kernel: one launch under Nsight Compute.
ncu --target-processes all -k regex:wmma_matmul -c 1 \
  --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem \
  "$cli" run 12 --size 4096 --reps 1 --warmup 0 --no-reference > "$out/ncu.txt" 2>&1 || echo "ncu failed: see ncu.txt"

echo "== sanitizer (rc 0 = clean)"; cat "$out/sanitizer.txt"
echo "== ncu, default BF16 at 4096³"; grep -E '^\s+(sm__|smsp__|dram__|l1tex__|launch__)' "$out/ncu.txt" | head -20
echo "== timings"; cat "$out/bench.txt"
exit $failed
