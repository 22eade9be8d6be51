#!/usr/bin/env bash
# Register-tiling benchmarks on the GPU, all through `tilelab-cli run/sweep ... --json`:
#   1. seed 002's table again: naive, shared-tiled and 1D register tiling at the seed's (T, U)
#      pairs (S = T/U), N = 4096;
#   2. seed 000's table again: shared-tiled, 2D 4×4, 2D 8×8, 2D 8×8 + float4 at 4096³, with
#      TFLOP/s and % of cuBLAS SGEMM;
#   3. the best 2D configuration a `tilelab-cli sweep` finds over its parameters.
# It prints a table last, with the targets checked: best 2D ≥ 75 % of cuBLAS, and each step
# faster than the one before (naive < tiled < 1D < 2D < 2D + float4).
#
# Usage: scripts/bench_matmul_register.sh [path/to/tilelab-cli]     (default: build/tilelab-cli)
# Environment: SIZE (default 4096), OUT (folder for the raw JSON; default a temporary folder).
# Exit status: 0 when every configuration ran and validated, 1 otherwise (targets only reported).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench_start.sh
. scripts/bench_start.sh
bench_start register "$@"
SIZE="${SIZE:-4096}"

exec python3 - "$CLI" "$SIZE" "$OUT" <<'PY'
import json, subprocess, sys, os
sys.path.insert(0, "scripts")
import bench_cli  # noqa: E402  (scripts/bench_cli.py)
from bench_cli import sets  # noqa: E402

cli, size, out = sys.argv[1], sys.argv[2], sys.argv[3]
TARGET_PCT_OF_CUBLAS = 75.0
failures = []


def call(args, name):
    return bench_cli.call(cli, out, args, name)


def run(label, variant, params, name):
    rc, j = call(["run", variant, "--size", size] + sets(params), name)
    ok = j is not None and j.get("ok") and j.get("measured") and (j.get("validation") or {}).get("passed")
    if not ok:
        why = "no JSON" if j is None else (j.get("error") or j.get("no_gpu_reason")
                                            or (j.get("validation") or {}).get("message") or f"exit {rc}")
        failures.append(f"{label}: {why}")
    return {"label": label, "variant": variant, "params": params, "json": j, "ok": bool(ok)}


def ms(row):
    return row["json"]["median_ms"] if row["ok"] else None


reference_ms = None   # cuBLAS SGEMM at this size, from the first run that timed it


def describe(row):
    j = row["json"] or {}
    t = ms(row)
    if t is None:
        return [row["label"], "-", "-", "-", "-", "FAIL"]
    tflops = j["flops"] / (t * 1e-3) / 1e12
    pct = f"{100.0 * reference_ms / t:.1f}" if reference_ms else "-"
    return [row["label"], f"{t:.3f}", f"{tflops:.2f}", pct, str(j.get("registers", "-")), "ok"]


# ---- 1. seed 002: naive, tiled, 1D at the seed's (T, U) pairs ------------------------------
seed002 = [run("naive 16×16", "matmul.naive", {}, "naive"),
           run("tiled 32×32", "matmul.smem_tiled", {"TILE": 32}, "tiled32")]
seed_pairs = [(64, 16), (64, 32), (64, 64), (128, 64), (128, 128), (256, 128), (256, 256)]
for t, u in seed_pairs:
    seed002.append(run(f"1D T={t} U={u} S={t // u}", "matmul.register_1d",
                       {"T": t, "U": u, "S": t // u}, f"1d_T{t}_U{u}"))
one_d_default = next(r for r in seed002 if r["params"] == {"T": 128, "U": 128, "S": 1})

# ---- 2. seed 000: tiled, 2D 4×4, 2D 8×8, + float4 -------------------------------------------
common = {"BK": 8, "TRANSPOSE_A": 1, "PAD": 4, "DBUF": 1}
two_d_4 = run("2D 4×4 (64×64 blocks)", "matmul.register_2d",
              dict(common, BM=64, BN=64, TM=4, TN=4, FLOAT4=0), "2d_4x4")
two_d_8 = run("2D 8×8 (128×128 blocks)", "matmul.register_2d",
              dict(common, BM=128, BN=128, TM=8, TN=8, FLOAT4=0), "2d_8x8")
two_d_8v = run("2D 8×8 + float4", "matmul.register_2d",
               dict(common, BM=128, BN=128, TM=8, TN=8, FLOAT4=1), "2d_8x8_float4")
seed000 = [seed002[1], two_d_4, two_d_8, two_d_8v]

# ---- 3. the best 2D configuration from sweeps -----------------------------------------------
# tilelab-cli sweep varies two parameters at a time; the others are fixed with --set.
candidates = []
# Points the constraints reject (too many threads, unequal load shares) come back "skipped".
for bm, bn in [(64, 64), (128, 64), (64, 128), (128, 128), (256, 128), (128, 256)]:
    for bk in (8, 16):
        fixed = {"BM": bm, "BN": bn, "BK": bk, "FLOAT4": 1, "TRANSPOSE_A": 1, "PAD": 4, "DBUF": 1}
        name = f"sweep_BM{bm}_BN{bn}_BK{bk}"
        rc, points = call(["sweep", "matmul.register_2d", "--size", size, "--no-count", "--no-reference",
                           "--param", "TM", "--values", "4,8", "--param2", "TN", "--values2", "4,8"]
                          + sets(fixed), name)
        for p in points or []:
            if p.get("status") == "ok" and p.get("median_ms") and (p.get("validation") or {}).get("passed"):
                candidates.append((p["median_ms"], p["params"]))
best_row = None
if candidates:
    candidates.sort(key=lambda c: c[0])
    best_params = {k: v for k, v in candidates[0][1].items()}
    label = "best 2D: " + " ".join(f"{k}={v}" for k, v in best_params.items())
    best_row = run(label, "matmul.register_2d", best_params, "2d_best")
else:
    failures.append("sweep: no valid 2D point measured")

# ---- the tables, last -------------------------------------------------------------------------
def table(title, rows):
    lines = [title]
    head = ["kernel", "median ms", "TFLOP/s", "% cuBLAS", "regs", "valid"]
    body = [describe(r) for r in rows]
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    fmt_row = lambda r: "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                                  for i, (c, w) in enumerate(zip(r, widths)))
    lines.append(fmt_row(head))
    lines += [fmt_row(r) for r in body]
    return "\n".join(lines)

for r in seed002 + seed000 + ([best_row] if best_row else []):
    if r["json"] and r["json"].get("reference_ms"):
        reference_ms = r["json"]["reference_ms"]
        break
report = [table(f"Seed 002: 1D register tiling, {size}³", seed002), "",
          table(f"Seed 000: 2D register tiling, {size}³", seed000)]
if best_row:
    report += ["", table(f"Best 2D from {len(candidates)} swept points, {size}³", [best_row])]
report.append("")
ref = f"{reference_ms:.3f} ms" if reference_ms else "not measured"
report.append(f"cuBLAS SGEMM FP32 reference at {size}³: {ref}")

chain = [("naive", seed002[0]), ("tiled", seed002[1]), ("1D T=128 U=128", one_d_default),
         ("2D 8×8", two_d_8), ("2D 8×8 + float4", two_d_8v)]
times = [ms(r) for _, r in chain]
if all(t is not None for t in times):
    faster = all(b < a for a, b in zip(times, times[1:]))
    report.append("target: each step faster than the one before (" + " > ".join(
        f"{n} {t:.2f} ms" for (n, _), t in zip(chain, times)) + "): " + ("MET" if faster else "MISSED"))
if best_row and ms(best_row) and reference_ms:
    pct = 100.0 * reference_ms / ms(best_row)
    report.append(f"target: best 2D ≥ {TARGET_PCT_OF_CUBLAS:.0f}% of cuBLAS: {pct:.1f}% "
                  + ("MET" if pct >= TARGET_PCT_OF_CUBLAS else "MISSED"))
for f in failures:
    report.append("FAILED " + f)
report.append(f"raw JSON: {out}")
print("\n".join(report))
sys.exit(1 if failures else 0)
PY
