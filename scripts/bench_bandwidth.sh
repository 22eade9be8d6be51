#!/usr/bin/env bash
# Lesson 18 on the GPU: the memory latency experiment. Sweeps BLOCK (threads per block, one block
# per SM: the threads an SM holds) against ILP (independent loads a thread issues before using
# them) for float4 and for float loads, every point validated, and prints a markdown table last:
# GB/s read, % of a device copy moving the same bytes (measured in the same run), and the model's
# bytes in flight per SM.
#
# Usage: scripts/bench_bandwidth.sh [BUILD_DIR] [OUT_DIR]   (needs tilelab-cli, a GPU and python3)
#   SIZE=132x134217728x1 the problem (blocks x N floats x 1; blocks = the SM count)
# Exit status: 0 if every point validated, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$(mktemp -d)}
size=${SIZE:-132x134217728x1}
cli="$build/tilelab-cli"
[ -x "$cli" ] || { echo "bench_bandwidth: $cli not found; build first" >&2; exit 2; }
mkdir -p "$out"
"$cli" sweep 18 --size "$size" --set VEC=4 --param BLOCK --values 32,64,128,256,512,1024 --param2 ILP --values2 1,2,4,8 \
    --reps 5 --warmup 1 --json > "$out/bandwidth_vec4.json" || true
"$cli" sweep 18 --size "$size" --set VEC=1 --param BLOCK --values 128,256,512,1024 --param2 ILP --values2 1,4,8 \
    --reps 5 --warmup 1 --json > "$out/bandwidth_vec1.json" || true
python3 - "$out/bandwidth_vec4.json" "$out/bandwidth_vec1.json" <<'PY'
import json, sys
bad = 0
print("| VEC | ILP | BLOCK | bytes in flight / SM | ms | GB/s read | % of copy | valid |")
print("|---|---|---|---|---|---|---|---|")
for path in sys.argv[1:]:
    for p in sorted(json.load(open(path)), key=lambda p: (p["params"]["ILP"], p["params"]["BLOCK"])):
        v = p.get("validation") or {}
        ok = bool(p.get("ok") and v.get("passed", False))
        bad += 0 if ok else 1
        q = p["params"]
        n = p["problem"]["dim"][1] if isinstance(p["problem"], dict) else p["problem"][1]
        ms, pct = p.get("median_ms"), p.get("pct_of_reference")
        flight = q["BLOCK"] * q["ILP"] * q["VEC"] * 4
        if ms:
            print(f"| {q['VEC']} | {q['ILP']} | {q['BLOCK']} | {flight} | {ms:.4f} | {4 * n / ms / 1e6:.0f} | {pct:.1f} | {'yes' if ok else 'NO'} |")
        else:
            print(f"| {q['VEC']} | {q['ILP']} | {q['BLOCK']} | {flight} | - | - | - | {'yes' if ok else 'NO'} |")
sys.exit(1 if bad else 0)
PY
