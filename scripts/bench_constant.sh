#!/usr/bin/env bash
# Lesson 19 on the GPU: where a convolution's filter lives. At the benchmark size, every point
# validated, for FILTER_IN immediate (one filter: the baseline without filter reads), constant,
# global and shared, the filter index uniform and per lane, FILTERS 1..32; hardware counters on.
# Prints a markdown table last: ms, the extra time per filter read over the immediates' run
# (ns per warp-level read: (ms − ms_immediate) / (taps · W·H / 32)), LDC instructions and
# constant-cache requests (ncu's smsp__inst_executed_op_ldc.sum and idc__requests.sum) and the
# model's requests, and the per-lane/uniform ratio of the extra time per read.
#
# Usage: scripts/bench_constant.sh [BUILD_DIR] [OUT_DIR]   (needs tilelab-cli, a GPU and python3)
#   SIZE=4096x4096x1 RADIUS=2
# Exit status: 0 if every point validated, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$(mktemp -d)}
size=${SIZE:-4096x4096x1}
radius=${RADIUS:-2}
cli="$build/tilelab-cli"
[ -x "$cli" ] || { echo "bench_constant: $cli not found; build first" >&2; exit 2; }
mkdir -p "$out"
"$cli" run 19 --size "$size" --set FILTER_IN=immediate --set FILTERS=1 --set RADIUS="$radius" --reps 20 --json \
    > "$out/constant_immediate.json" || true
for index in uniform per_lane; do
  "$cli" sweep 19 --size "$size" --set INDEX=$index --set RADIUS="$radius" --param FILTERS --values 1,2,4,8,16,32 \
      --param2 FILTER_IN --values2 constant,global,shared --hardware --reps 20 --json > "$out/constant_$index.json" || true
done
python3 - "$out" "$size" "$radius" <<'PY'
import json, sys, os
out, size, radius = sys.argv[1], sys.argv[2], int(sys.argv[3])
w, h = (int(x) for x in size.split("x")[:2])
taps = (2 * radius + 1) ** 2
reads = taps * w * h / 32          # warp-level filter reads
bad = 0
def ok(p):
    v = p.get("validation") or {}
    return bool(p.get("ok", True)) and v.get("passed", False)
base = json.load(open(os.path.join(out, "constant_immediate.json")))
base = base[0] if isinstance(base, list) else base
bad += 0 if ok(base) else 1
t0 = base["median_ms"]
print(f"size {size}, radius {radius} ({taps} taps), immediate (no filter reads): {t0:.4f} ms, valid: {ok(base)}")
names = {1: "constant", 2: "global", 3: "shared"}
extra = {}
print("| FILTER_IN | INDEX | FILTERS | ms | extra ns / warp read | LDC | constant requests | model requests | valid |")
print("|---|---|---|---|---|---|---|---|---|")
for index in ("uniform", "per_lane"):
    for p in json.load(open(os.path.join(out, f"constant_{index}.json"))):
        good = ok(p)
        bad += 0 if good else 1
        prm = p["params"]
        hw = p.get("hardware") or {}
        ms = p.get("median_ms")
        ns = (ms - t0) * 1e6 / reads if ms else float("nan")
        extra[(prm["FILTER_IN"], index, prm["FILTERS"])] = ns
        ldc, idc = hw.get("smsp__inst_executed_op_ldc.sum"), hw.get("idc__requests.sum")
        fmt = lambda v: f"{v:,.0f}" if isinstance(v, (int, float)) else "-"
        print(f"| {names[prm['FILTER_IN']]} | {index} | {prm['FILTERS']} | {ms:.4f} | {ns:.3f} | {fmt(ldc)} | {fmt(idc)} | "
              f"{fmt(p.get('constant_requests'))} | {'yes' if good else 'NO'} |")
print()
print("| FILTER_IN | FILTERS | per-lane / uniform, extra time per read |")
print("|---|---|---|")
for where in (1, 2, 3):
    for f in (2, 4, 8, 16, 32):
        u, l = extra.get((where, "uniform", f)), extra.get((where, "per_lane", f))
        if u and l:
            print(f"| {names[where]} | {f} | {l / u:.1f}× |")
sys.exit(1 if bad else 0)
PY
