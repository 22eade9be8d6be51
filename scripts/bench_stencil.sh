#!/usr/bin/env bash
# Benchmarks the four stencil variants on the GPU at 256³ and 512³: for each variant a small sweep
# of its parameters (without the counting run), then the fastest point run again with more
# repetitions and the access count. Prints every point, then a markdown table last:
# ms, effective GB/s (8 bytes per cell: one read, one write), % of the measured device copy of the
# same grid, GFLOP/s, and the counted-vs-model check.
#
# Usage: scripts/bench_stencil.sh [BUILD_DIR]      (default: build; needs tilelab-cli and a GPU)
#   SIZES="256 512"   sizes to run (cubes)
#   REPS=30           repetitions of the final runs (sweeps use 10)
# Exit status: 0 if every run validated, 1 otherwise. Needs python3 (for the JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cli="$build/tilelab-cli"
sizes=${SIZES:-"256 512"}
reps=${REPS:-30}
[ -x "$cli" ] || { echo "bench_stencil: $cli not found; build first (cmake --build $build --target tilelab-cli)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# variant | fixed --set flags | swept parameter(s): "--param P --values ... [--param2 Q --values2 ...]"
sweeps=(
  "stencil.basic|--set BX=32|--param BY --values 4,8,16 --param2 BZ --values2 1,2,4"
  "stencil.basic|--set BZ=1|--param BX --values 64,128,256 --param2 BY --values2 1,2,4"
  "stencil.smem_tiled||--param T --values 6,8,10"
  "stencil.coarsened|--set TX=32|--param TY --values 8,16,32 --param2 Z --values2 16,32,64"
  "stencil.coarsened|--set TX=64|--param TY --values 4,8,16 --param2 Z --values2 32,64"
  "stencil.coarsened|--set TX=32 --set TY=4 --set HALO=1|--param RY --values 2,3,4 --param2 Z --values2 16,32,64"
  "stencil.coarsened|--set TX=32 --set Z=32 --set HALO=1|--param TY --values 4,8 --param2 RY --values2 1,2,4"
  "stencil.coarsened|--set TY=4 --set RY=4 --set HALO=1|--param TX --values 32,64 --param2 Z --values2 16,32"
  "stencil.register_tiled|--set TX=32|--param TY --values 8,16,32 --param2 Z --values2 16,32,64"
  "stencil.register_tiled|--set TX=64|--param TY --values 4,8,16 --param2 Z --values2 32,64"
  "stencil.register_tiled|--set TX=32 --set TY=4 --set HALO=1|--param RY --values 2,3,4 --param2 Z --values2 16,32,64"
  "stencil.register_tiled|--set TX=32 --set Z=32 --set HALO=1|--param TY --values 4,8 --param2 RY --values2 1,2,4"
  "stencil.register_tiled|--set TY=4 --set RY=4 --set HALO=1|--param TX --values 32,64 --param2 Z --values2 16,32"
)

status=0
for n in $sizes; do
  i=0
  for line in "${sweeps[@]}"; do
    IFS='|' read -r variant fixed swept <<<"$line"
    i=$((i + 1))
    echo "sweep $variant $fixed $swept at ${n}³" >&2
    # shellcheck disable=SC2086  # the flags are meant to split
    "$cli" sweep "$variant" $fixed $swept --size "$n" --no-count --json >"$work/sweep_${n}_$i.json" || status=1
  done

  # The fastest validated point of each variant, run again with more repetitions and the count.
  python3 - "$work" "$n" >"$work/best_$n.txt" <<'EOF'
import glob, json, sys
work, n = sys.argv[1], sys.argv[2]
best = {}
for path in sorted(glob.glob(f"{work}/sweep_{n}_*.json")):
    try:
        points = json.load(open(path))
    except ValueError:
        continue
    for p in points:
        if not p.get("ok") or not p.get("median_ms") or not (p.get("validation") or {}).get("passed"):
            continue
        v = p["variant"]
        if v not in best or p["median_ms"] < best[v]["median_ms"]:
            best[v] = p
for v, p in best.items():
    print(v, " ".join(f"--set {k}={val}" for k, val in p["params"].items()))
EOF
  while read -r variant sets; do
    echo "final $variant $sets at ${n}³" >&2
    # shellcheck disable=SC2086
    "$cli" run "$variant" $sets --size "$n" --reps "$reps" --json >"$work/final_${n}_${variant}.json" || status=1
  done <"$work/best_$n.txt"
done

python3 - "$work" <<'EOF' || status=1
import glob, json, sys
work = sys.argv[1]
order = ["stencil.basic", "stencil.smem_tiled", "stencil.coarsened", "stencil.register_tiled"]

def params(p):
    return " ".join(f"{k}={v}" for k, v in p["params"].items())

print("\n## Every swept point\n")
print("| variant | params | size | ms | GB/s eff | % copy | valid |")
print("| --- | --- | --- | ---: | ---: | ---: | --- |")
for path in sorted(glob.glob(f"{work}/sweep_*.json")):
    try:
        points = json.load(open(path))
    except ValueError:
        continue
    for p in points:
        if not p.get("ok"):
            why = p.get("error") or p.get("skipped") or p.get("reason") or "not run"
            print(f"| {p.get('variant')} | {params(p) if 'params' in p else ''} | {p['problem']['text']} | – | – | – | {why} |")
            continue
        v = (p.get("validation") or {}).get("passed")
        print(f"| {p['variant']} | {params(p)} | {p['problem']['text']} | {p['median_ms']:.4f} | "
              f"{p['gbps_effective']:.0f} | {p['pct_of_reference'] or 0:.1f} | {'yes' if v else 'NO'} |")

rows, failed = [], False
for path in glob.glob(f"{work}/final_*.json"):
    r = json.load(open(path))
    rows.append(r)
rows.sort(key=lambda r: (r["problem"]["dim"][0], order.index(r["variant"]) if r["variant"] in order else 99))
print("\n## Stencil variants at their best swept parameters\n")
if rows:
    print(f"GPU: {rows[0]['target']} ({rows[0]['arch']}). Effective GB/s counts 8 bytes per cell "
          "(one read, one write); % copy = device-to-device copy time of the same grid / kernel time.\n")
print("| variant | params | size | ms | GB/s eff | copy GB/s | % copy | GFLOP/s | model FLOP/B | regs | counted = model | valid |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
for r in rows:
    if not r.get("ok"):
        failed = True
        print(f"| {r['variant']} | {params(r)} | {r['problem']['text']} | failed: {r.get('stage')}: {r.get('error')} |")
        continue
    compulsory = 8 * r["problem"]["dim"][0] * r["problem"]["dim"][1] * r["problem"]["dim"][2]
    copy_gbps = compulsory / (r["reference_ms"] * 1e6) if r.get("reference_ms") else float("nan")
    counted = r.get("counted")
    same = counted is not None and all(counted[k] == r[k] for k in
                                       ("global_loads", "global_stores", "shared_loads", "shared_stores"))
    valid = (r.get("validation") or {}).get("passed")
    failed |= not valid or not same
    print(f"| {r['variant']} | {params(r)} | {r['problem']['text']} | {r['median_ms']:.4f} | {r['gbps_effective']:.0f} | "
          f"{copy_gbps:.0f} | {r['pct_of_reference']:.1f} | {r['gflops']:.0f} | {r['intensity']:.3f} | {r['registers']} | "
          f"{'yes' if same else 'NO'} | {'yes' if valid else 'NO'} |")
sys.exit(1 if failed else 0)
EOF
exit $status
