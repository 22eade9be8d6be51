#!/usr/bin/env python3
"""Where L2 is emptied before the counter pass, and what each place does to a kernel's L2 counts
(issue 30, item 7).

Since 2026-12-06 the pass empties L2 after its profiler's start (L2Emptying in
engine/src/gpu_worker/hardware_counters.h): a read-only kernel's DRAM writes went from 1.4-3.2 MB
to 0.01-0.3 MB on an H100. One small kernel moved the other way: matmul.register_2d at 369³ asked
L2 for 17.0 MB in the pass, 19.7-20.3 MB with the emptying before the start, 20.0-20.4 MB in ncu,
with no DRAM writes either way (docs/benchmarks.md). This probe runs each configuration with the
emptying in both places (TILELAB_HW_FLUSH=before and =inpass) and collects L2's requests by
source (the SMs, the other L2 half), writes, misses and L1's global-load sectors and hits beside
ncu's on the kernel's first launch, --repeat times each. On an H100 (2026-12-06 14:34) the SMs ask
L1 for the same sectors in both places, but in the pass twice as many hit L1 (0.19-0.21 M against
0.10), so L2 gets fewer requests: a different launch, not a different count. A difference here is
a finding, not a failure; a run that fails makes the exit status 1. Since 2026-12-07 the pass
counts L2's metrics with the emptying before the start, as ncu, and the rest in the pass.

Usage: probe_l2_placement.py CLI [--ncu PATH] [--repeat N] [--out DIR] [--only SUBSTRING]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_dram_reads import measure, mega, probe_args  # noqa: E402

TIMED = ["--no-count", "--no-reference", "--reps", "3", "--warmup", "1"]
METRICS = ["lts__t_bytes.sum", "lts__t_sectors_srcunit_tex.sum", "lts__t_sectors_srcunit_ltcfabric.sum",
           "lts__t_sectors_op_write.sum", "lts__t_sectors_lookup_miss.sum", "dram__bytes_write.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"]
SHORT = ["L2 bytes (MB)", "from SMs (M sectors)", "from other half (M)", "writes (M)", "misses (M)", "DRAM written (MB)",
         "L1 load sectors (M)", "L1 hits (M)"]
CONFIGS = [
    ("matmul.register_2d", "369", {"BM": 16, "BN": 32, "BK": 64, "TM": 4, "TN": 2, "FLOAT4": 0, "TRANSPOSE_A": 0,
                                   "PAD": 3, "DBUF": 0}),
    ("matmul.register_2d", "1024", {"BM": 16, "BN": 32, "BK": 64, "TM": 4, "TN": 2, "FLOAT4": 0, "TRANSPOSE_A": 0,
                                    "PAD": 3, "DBUF": 0}),
    ("bandwidth.stream_read", "89x134217728x1", {"ILP": 8, "VEC": 4, "BLOCK": 160}),
]
PLACEMENTS = [("before the start", "before"), ("in the pass", "inpass")]


def cell(metric, value):
    if value is None:
        return "-"
    return mega(value) if "bytes" in metric else f"{value / 1e6:.3f}"   # bytes in MB, sectors in millions


def main():
    a = probe_args("Where L2 is emptied before the counter pass, and its L2 counts")
    rows = []
    failed = 0
    for name, flush in PLACEMENTS:
        os.environ["TILELAB_HW_FLUSH"] = flush
        got, bad = measure(a, CONFIGS, METRICS, TIMED, lambda label, ours, theirs: print(
            f"{label} ({name}): L2 {mega(ours.get(METRICS[0]))} MB here, {mega(theirs.get(METRICS[0]))} MB ncu",
            flush=True))
        rows += [(name, *row) for row in got]
        failed += bad
    print("\n| configuration | L2 emptied | " + " | ".join(f"{s} here / ncu" for s in SHORT) + " |")
    print("| --- | --- |" + " ---: |" * len(SHORT))
    for name, label, _, ours, theirs in rows:
        cells = [f"{cell(m, ours.get(m))} / {cell(m, theirs.get(m))}" for m in METRICS]
        print(f"| {label} | {name} | " + " | ".join(cells) + " |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
