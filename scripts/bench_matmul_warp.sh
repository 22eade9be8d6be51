#!/usr/bin/env bash
# Warp-tiled matmul benchmarks on the GPU (lesson 06, issue 17), all through `tilelab-cli ... --json`:
#   1. a grid at 4096³: STAGES 1..4 × ten block/warp-tile shapes and register caps (one `sweep`
#      over STAGES per shape);
#   2. at 2048³, 4096³ and 8192³: lesson 05's 2D kernel at its defaults, the warp-tiled kernel at
#      its defaults and at the best shape of the grid, each against cuBLAS SGEMM FP32 measured in
#      the same run (L2 flushed, validated); at 4096³ the whole ladder below them (naive, tiled,
#      1D, 2D without float4 loads).
# It prints the tables last, with issue 17's targets checked: ≥ 95 % of cuBLAS at 4096³, ≥ 90 % at
# 2048³ and 8192³.
#
# Usage: scripts/bench_matmul_warp.sh [path/to/tilelab-cli]     (default: build/tilelab-cli)
# Environment: REPS (default 20), OUT (folder for the raw JSON; default a temporary folder).
# Exit status: 0 when every configuration ran and validated, 1 otherwise (targets only reported).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench_start.sh
. scripts/bench_start.sh
bench_start warp "$@"
REPS="${REPS:-20}"

exec python3 - "$CLI" "$REPS" "$OUT" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "scripts")
import bench_cli  # noqa: E402  (scripts/bench_cli.py)
from bench_cli import sets  # noqa: E402

cli, reps, out = sys.argv[1], sys.argv[2], sys.argv[3]
TARGETS = {2048: 90.0, 4096: 95.0, 8192: 90.0}
failures = []


def call(args, name):
    return bench_cli.call(cli, out, args, name)


def run(label, variant, params, size, name):
    rc, j = call(["run", variant, "--size", str(size), "--reps", reps] + sets(params), name)
    ok = j is not None and j.get("ok") and j.get("measured") and (j.get("validation") or {}).get("passed")
    if not ok:
        why = "no JSON" if j is None else (j.get("error") or j.get("no_gpu_reason")
                                            or (j.get("validation") or {}).get("message") or f"exit {rc}")
        failures.append(f"{label} at {size}³: {why}")
    return {"label": label, "params": params, "json": j, "ok": bool(ok)}


def cells(row):
    j = row["json"] or {}
    if not row["ok"]:
        return [row["label"], "-", "-", "-", "-", "FAIL"]
    t = j["median_ms"]
    gflops = j["flops"] / (t * 1e-3) / 1e9
    ref = j.get("reference_ms")
    pct = f"{100.0 * ref / t:.1f}" if ref else "-"
    return [row["label"], f"{t:.3f}", f"{gflops:.0f}", pct, str(j.get("registers", "-")), "ok"]


def table(title, head, body):
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    line = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([title, line(head)] + [line(r) for r in body])


# ---- 1. the grid at 4096³ -------------------------------------------------------------------
shapes = {
    "128x128 64x32 WNITER=2 8x4 BK=16 (default)": {},
    "128x128 64x32 WNITER=2 8x4 BK=16 MINBLOCKS=1": {"MINBLOCKS": 1},
    "128x128 64x32 WNITER=1 8x4 BK=16 (WMITER=2)": {"WNITER": 1},
    "128x128 32x64 WNITER=2 4x8 BK=16": {"WM": 32, "WN": 64, "TM": 4, "TN": 8},
    "128x128 32x64 WNITER=2 8x4 BK=16": {"WM": 32, "WN": 64},
    "128x128 64x64 WNITER=4 8x4 BK=16 (128 threads)": {"WM": 64, "WN": 64, "WNITER": 4},
    "128x128 64x32 WNITER=2 8x4 BK=8": {"BK": 8},
    "128x256 64x64 WNITER=2 8x4 BK=16 MINBLOCKS=1": {"BN": 256, "WM": 64, "WN": 64, "MINBLOCKS": 1},
    "128x256 32x128 WNITER=2 8x4 BK=16 MINBLOCKS=1": {"BN": 256, "WM": 32, "WN": 128, "MINBLOCKS": 1},
    "256x128 64x64 WNITER=2 8x4 BK=16 MINBLOCKS=1": {"BM": 256, "WM": 64, "WN": 64, "MINBLOCKS": 1},
}
grid = []   # (label, params, median ms) of every validated point
grid_rows = []
for i, (label, fixed) in enumerate(shapes.items()):
    rc, points = call(["sweep", "matmul.warp_tiled", "--size", "4096", "--reps", "10", "--no-count", "--no-reference",
                       "--param", "STAGES", "--values", "1,2,3,4"] + sets(fixed), f"grid_{i}")
    row = [label]
    for stages in (1, 2, 3, 4):
        p = next((p for p in points or [] if (p.get("params") or {}).get("STAGES") == stages), None)
        if p and p.get("status") == "ok" and p.get("median_ms") and (p.get("validation") or {}).get("passed"):
            row.append(f"{p['median_ms']:.3f} ({p.get('registers', '?')} regs)")
            grid.append((label, dict(fixed, STAGES=stages), p["median_ms"]))
        elif p and p.get("status") == "ok":
            row.append("not measured")
        else:
            row.append((p or {}).get("status", "-"))
    grid_rows.append(row)
if not grid:
    failures.append("grid: no valid point measured")
best = min(grid, key=lambda g: g[2]) if grid else None

# ---- 2. the ladder's top at three sizes, against cuBLAS -------------------------------------
sections = []
percent = {}
for size in (2048, 4096, 8192):
    rows = []
    if size == 4096:
        rows += [run("naive (lesson 01 defaults)", "matmul.naive", {}, size, f"naive_{size}"),
                 run("shared-memory tiled (lesson 02 defaults)", "matmul.smem_tiled", {}, size, f"tiled_{size}"),
                 run("1D register tiling (lesson 04 defaults)", "matmul.register_1d", {}, size, f"1d_{size}"),
                 run("2D register tiling, FLOAT4=0", "matmul.register_2d", {"FLOAT4": 0}, size, f"2d_scalar_{size}")]
    rows += [run("2D register tiling (lesson 05 defaults)", "matmul.register_2d", {}, size, f"2d_{size}"),
             run("warp-tiled (defaults)", "matmul.warp_tiled", {}, size, f"warp_{size}")]
    first_warp = len(rows) - 1
    if best:
        p = best[1]
        rows.append(run("warp-tiled, best of the grid: " + " ".join(f"{k}={v}" for k, v in p.items()),
                        "matmul.warp_tiled", p, size, f"warp_best_{size}"))
    ref = next((r["json"]["reference_ms"] for r in rows if r["ok"] and r["json"].get("reference_ms")), None)
    warp_ms = [r["json"]["median_ms"] for r in rows[first_warp:] if r["ok"]]
    if ref and warp_ms:
        percent[size] = 100.0 * ref / min(warp_ms)
    body = [cells(r) for r in rows]
    body.append(["cuBLAS SGEMM FP32", f"{ref:.3f}" if ref else "-", f"{2 * size ** 3 / (ref * 1e-3) / 1e9:.0f}" if ref else "-",
                 "100.0" if ref else "-", "-", "ref"])
    sections.append(table(f"{size}³", ["kernel", "median ms", "GFLOP/s", "% cuBLAS", "regs", "valid"], body))

# ---- the tables, last -------------------------------------------------------------------------
report = ["## Warp-tiled matmul (lesson 06): grid, and the three sizes against cuBLAS", "",
          table("Grid at 4096³ (median ms and registers, --reps 10, no reference): STAGES across",
                ["shape (BMxBN WMxWN WNITER TMxTN BK)", "STAGES=1", "STAGES=2", "STAGES=3", "STAGES=4"], grid_rows), ""]
if best:
    report.append(f"best of the grid: {best[0]}, STAGES={best[1]['STAGES']}: {best[2]:.3f} ms")
    report.append("")
for s in sections:
    report += [s, ""]
for size, target in TARGETS.items():
    if size in percent:
        report.append(f"target: warp-tiled ≥ {target:.0f}% of cuBLAS at {size}³: {percent[size]:.1f}% "
                      + ("MET" if percent[size] >= target else "MISSED"))
for f in failures:
    report.append("FAILED " + f)
report.append(f"raw JSON: {out}")
print("\n".join(report))
sys.exit(1 if failures else 0)
PY
