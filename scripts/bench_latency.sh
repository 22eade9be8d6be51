#!/usr/bin/env bash
# Lesson 17 on the GPU: the arithmetic latency experiment. Sweeps BLOCK (threads per block, one
# block per SM: the warps an SM holds) against ILP (independent FMA chains a thread) at the
# lesson's size, every point validated, and prints a markdown table last: GFLOP/s, % of the FMA
# peak measured by the yardstick (8 chains a thread, every SM full) and of the datasheet-style peak
# (SMs × 128 lanes × 2 × the clock the device reports), and the model's independent FMAs per scheduler.
#
# Usage: scripts/bench_latency.sh [BUILD_DIR] [OUT_DIR]   (needs tilelab-cli, a GPU and python3)
#   SIZE=132x131072x1  the problem (blocks x FMAs/thread x 1; blocks = the SM count)
# Exit status: 0 if every point validated, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$(mktemp -d)}
size=${SIZE:-132x131072x1}
cli="$build/tilelab-cli"
[ -x "$cli" ] || { echo "bench_latency: $cli not found; build first" >&2; exit 2; }
mkdir -p "$out"
"$cli" sweep 17 --size "$size" --param BLOCK --values 32,64,128,256,384,512,768,1024 --param2 ILP --values2 1,2,4,8 \
    --reps 20 --json > "$out/latency_sweep.json" || true
python3 - "$out/latency_sweep.json" <<'PY'
import json, sys
points = json.load(open(sys.argv[1]))
bad = 0
rows = {}
peak = None
for p in points:
    v = p.get("validation") or {}
    ok = p.get("ok") and v.get("passed", False)
    bad += 0 if ok else 1
    t = p.get("target_detail") or {}
    peak = t.get("peak_fp32_gflops", peak)
    ilp, block = p["params"]["ILP"], p["params"]["BLOCK"]
    rows[(ilp, block)] = (ok, p.get("median_ms"), p.get("gflops"), p.get("pct_of_reference"), p.get("reference_ms"))
print(f"device peak (SMs x 128 x 2 x clock): {peak} GFLOP/s")
print("| ILP | BLOCK | warps/SM | ms | GFLOP/s | % of measured FMA peak | % of clock peak | valid |")
print("|---|---|---|---|---|---|---|---|")
for (ilp, block), (ok, ms, gf, pct, ref) in sorted(rows.items()):
    clock = 100 * gf / peak if gf and peak else float("nan")
    print(f"| {ilp} | {block} | {block // 32} | {ms:.4f} | {gf:.0f} | {pct:.1f} | {clock:.1f} | {'yes' if ok else 'NO'} |" if ms else
          f"| {ilp} | {block} | {block // 32} | - | - | - | - | {'yes' if ok else 'NO'} |")
sys.exit(1 if bad else 0)
PY
