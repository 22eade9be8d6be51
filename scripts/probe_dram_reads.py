#!/usr/bin/env python3
"""Where TileLab's DRAM reads part from Nsight Compute's (issue 30, item 7).

For each configuration below, the counter pass collects, instead of its table, the counts that
explain DRAM reads — L1's local-memory load sectors (spilled registers read back), L2's read
sectors and those that missed L2, DRAM's read bytes (TILELAB_HW_METRICS; the values come from
TILELAB_HW_TRACE's lines) — and ncu collects the same metrics on the kernel's first launch
(`--clock-control none`, its own cache control) and that launch's duration, --repeat times each.
Prints one line per run as it comes, then a markdown table: the requests at each level beside
ncu's, the misses beside ncu's, the DRAM reads' ratio, and the kernel's time unprofiled (the
median of TileLab's timed launches, L2 emptied before each) beside the duration of ncu's launch:
which of the two profiled launches behaves like the unprofiled ones. Every run is validated by
the CLI; a run that fails is reported and makes the exit status 1. A large difference here is a
finding, not a failure.

The configurations: matmul.register_2d with a 16×8 thread tile (584 bytes of spill loads a thread
with DBUF=1, 184 without; ptxas, CUDA 13.0) at sizes around where A, B and the spilled registers together fill L2; the
same variant's defaults near L2's size (no spills); lesson 07's register caps (spills by design).

Usage: probe_dram_reads.py CLI [--ncu PATH] [--repeat N] [--out DIR] [--only SUBSTRING]
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cli  # noqa: E402
from check_counters import ncu_values  # noqa: E402

TIMED = ["--no-count", "--no-reference", "--reps", "5", "--warmup", "1"]   # TileLab's run: its own median
DURATION = "gpu__time_duration.sum"

DRAM, L2_READ, L2_MISS, LOCAL = ("dram__bytes_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
                                 "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
                                 "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum")
METRICS = [DRAM, L2_READ, L2_MISS, LOCAL]

TILE_16x8 = {"BM": 128, "BN": 32, "BK": 8, "TM": 16, "TN": 8, "FLOAT4": 0, "TRANSPOSE_A": 0, "PAD": 4}
CONFIGS = [
    ("matmul.register_2d", "1536", {**TILE_16x8, "DBUF": 1}),
    ("matmul.register_2d", "2048", {**TILE_16x8, "DBUF": 1}),
    ("matmul.register_2d", "2048", {**TILE_16x8, "DBUF": 0}),
    ("matmul.register_2d", "2560", {**TILE_16x8, "DBUF": 1}),
    ("matmul.register_2d", "8066", {**TILE_16x8, "DBUF": 1}),
    ("matmul.register_2d", "2816", {"FLOAT4": 0}),
    ("matmul.register_pressure", "2048", {"MAXREG": 64}),
    ("matmul.register_pressure", "2048", {"MAXREG": 32}),
]


def trace_values(lines):
    """The counter pass's values from TILELAB_HW_TRACE's "hw-value: NAME VALUE" lines (summed over
    a run's kernels)."""
    values = {}
    for line in lines:
        if line.startswith("hw-value: "):
            _, name, value = line.split()
            values[name] = values.get(name, 0.0) + float(value)
    return values


def traced_values(err_path):
    """trace_values of a run's stderr, kept in a file."""
    with open(err_path) as f:
        return trace_values(f)


def mega(x):
    return f"{x / 1e6:.2f}" if x is not None else "-"


def probe_args(what):
    """The command line both probes take: CLI [--ncu PATH] [--repeat N] [--out DIR] [--only SUBSTRING]."""
    ap = argparse.ArgumentParser(description=what)
    ap.add_argument("cli")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", default="", help="only the configurations whose label contains this")
    ap.add_argument("--out", default="")
    return ap.parse_args()


def measure(a, configs, metrics, timed, say, pass_launch=False, app_replay=False):
    """Each configuration (variant, size, params) --repeat times: TileLab's run with its counter pass
    collecting `metrics` (TILELAB_HW_METRICS, read from TILELAB_HW_TRACE's lines) and ncu's values of
    the same metrics and the duration on the kernel's first launch; with pass_launch, also ncu's on
    the counter pass's own launch after the pass's L2 emptying (theirs["pass"]); with app_replay,
    ncu's on the first launch in application replay, which saves and restores no memory (theirs["app"]). Returns the rows
    (label, the run's JSON, ours, theirs) and the number of runs that failed; `say(label, ours,
    theirs)` prints a line as each comes."""
    out = a.out or tempfile.mkdtemp(prefix="probe_dram_")
    os.makedirs(out, exist_ok=True)
    print(f"runs kept under {out}", file=sys.stderr)
    os.environ.update(TILELAB_HW_TRACE="1", TILELAB_HW_METRICS=",".join(metrics))
    rows, failed = [], 0
    for variant, size, params in configs:
        label = f"{variant} {size} " + " ".join(f"{k}={v}" for k, v in params.items())
        if a.only not in label:
            continue
        args = ["--size", size] + bench_cli.sets(params)
        for rep in range(a.repeat):
            name = f"{variant}_{len(rows)}_{rep}"
            rc, j = bench_cli.call(a.cli, out, ["run", variant, *timed] + args, name)
            why = bench_cli.failure(rc, j)
            if why:
                print(f"{label}: {why}")
                failed += 1
                continue
            ours = traced_values(os.path.join(out, name + ".err"))
            kernel = j["kernel"].split("<")[0]
            theirs = ncu_values(a.ncu, a.cli, variant, args, kernel, metrics + [DURATION], ["--clock-control", "none"])
            if pass_launch:
                theirs["pass"] = ncu_values(a.ncu, a.cli, variant, args, kernel, metrics, ["--clock-control", "none"],
                                            same_launch=True)
            if app_replay:
                theirs["app"] = ncu_values(a.ncu, a.cli, variant, args, kernel, metrics,
                                           ["--clock-control", "none", "--replay-mode", "application"])
            rows.append((label, j, ours, theirs))
            say(label, ours, theirs)
    return rows, failed


def main():
    a = probe_args("Where TileLab's DRAM reads part from Nsight Compute's")
    rows, failed = measure(a, CONFIGS, METRICS, TIMED, lambda label, ours, theirs: print(
        f"{label}: DRAM read {mega(ours.get(DRAM))} MB here, {mega(theirs.get(DRAM))} MB ncu", flush=True))
    print("\n| configuration | spill loads (B/thread) | local load sectors (M) here / ncu | L2 read sectors (M) "
          "here / ncu | L2 read misses (M) here / ncu | DRAM read (MB) here / ncu | here / ncu | "
          "ms: unprofiled (median) / ncu's launch |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, j, ours, theirs in rows:
        ratio = ours.get(DRAM, 0) / theirs[DRAM] if theirs.get(DRAM) else float("nan")
        cells = [f"{mega(ours.get(m))} / {mega(theirs.get(m))}" for m in (LOCAL, L2_READ, L2_MISS, DRAM)]
        ncu_ms = theirs[DURATION] / 1e6 if theirs.get(DURATION) else float("nan")   # ncu prints ns
        print(f"| {label} | {j.get('spill_loads', 0)} | " + " | ".join(cells) + f" | {ratio:.2f} | "
              f"{j.get('median_ms'):.3f} / {ncu_ms:.3f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
