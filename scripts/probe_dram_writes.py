#!/usr/bin/env python3
"""What a launch's DRAM writes hold besides the kernel's own, in TileLab's counter pass and under
Nsight Compute (issue 30, item 7).

Under ncu on an H100 (2026-12-06, docs/benchmarks.md) lesson 18's read, which writes 8 bytes, had
1.4 MB written back during its launch after reading 34 MB and about 2.3 MB after 134 or 537 MB:
lines left dirty in L2 before the launch, pushed out by its reads. This probe measures the same
for TileLab's pass (the pass collects DRAM bytes and L2 write sectors instead of its table,
TILELAB_HW_METRICS; the values from TILELAB_HW_TRACE's lines) beside ncu on the kernel's first
launch (`--clock-control none`, its own cache control), --repeat times each, at three sizes of
the read and at the two small outputs of the seed-39 run that sat on either side of ncu; and ncu
on the pass's own launch, after the pass's L2 emptying with ncu's cache control off
(TILELAB_HW_NCU_LAUNCH, check_counters.py's --ncu-launch pass): what ncu counts there beyond the
pass is written after that emptying, by ncu's own set-up; and ncu on the first launch in application
replay (no memory saved and restored between passes). The two attention configurations are the
small outputs without spills that failed ncu's spread in the H100's large run of 2026-12-07.
Prints a line per run as it comes, then a markdown table. Every run is validated by the CLI; a
run that fails is reported and makes the exit status 1. A difference here is a finding.

Usage: probe_dram_writes.py CLI [--ncu PATH] [--repeat N] [--out DIR] [--only SUBSTRING]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_dram_reads import measure, mega, probe_args  # noqa: E402

TIMED = ["--no-count", "--no-reference", "--reps", "3", "--warmup", "1"]
WRITE, READ, L2_WRITE = "dram__bytes_write.sum", "dram__bytes_read.sum", "lts__t_sectors_op_write.sum"
METRICS = [WRITE, READ, L2_WRITE]

READ_KERNEL = {"ILP": 8, "VEC": 4, "BLOCK": 160}
CONFIGS = [
    ("bandwidth.stream_read", "89x8388608x1", READ_KERNEL),
    ("bandwidth.stream_read", "89x33554432x1", READ_KERNEL),
    ("bandwidth.stream_read", "89x134217728x1", READ_KERNEL),
    ("matmul.smem_tiled", "1066", {"TILE": 16, "PAD": 0}),
    ("matmul.register_pressure", "727", {"BM": 256, "BN": 16, "BK": 32, "TM": 1, "TN": 8, "FLOAT4": 0,
                                         "TRANSPOSE_A": 1, "PAD": 3, "DBUF": 0, "MAXREG": 49}),
    ("attention.flash2_mma", "7896x64x11", {"PREC": 2, "BR": 64, "BC": 32, "WARPS": 4, "STAGES": 2, "MINB": 4,
                                             "CAUSAL": 0}),
    ("attention.online_softmax", "4803x128x9", {"PREC": 0, "BR": 64, "BC": 8, "TPR": 8, "CAUSAL": 1, "RPT": 4,
                                                 "SPLIT": 1}),
]


def main():
    a = probe_args("What a launch's DRAM writes hold besides the kernel's own")
    rows, failed = measure(a, CONFIGS, METRICS, TIMED, lambda label, ours, theirs: print(
        f"{label}: DRAM written {mega(ours.get(WRITE))} MB here, {mega(theirs.get(WRITE))} MB ncu, "
        f"{mega(theirs['pass'].get(WRITE))} MB ncu on the pass's launch, {mega(theirs['app'].get(WRITE))} MB ncu "
        "in application replay", flush=True), pass_launch=True, app_replay=True)
    print("\n| configuration | DRAM written (MB) here / ncu / ncu on the pass's launch / ncu in application replay | "
          "DRAM read (MB) here / ncu | "
          "L2 write sectors here / ncu |")
    print("| --- | ---: | ---: | ---: |")
    for label, _, ours, theirs in rows:
        sectors = " / ".join(f"{v:.0f}" if v is not None else "-" for v in (ours.get(L2_WRITE), theirs.get(L2_WRITE)))
        print(f"| {label} | {mega(ours.get(WRITE))} / {mega(theirs.get(WRITE))} / {mega(theirs['pass'].get(WRITE))} / "
              f"{mega(theirs['app'].get(WRITE))} | "
              f"{mega(ours.get(READ))} / {mega(theirs.get(READ))} | {sectors} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
