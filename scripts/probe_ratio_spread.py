#!/usr/bin/env python3
"""The ratios per active cycle (tensor pipe busy, achieved occupancy), several times in each tool
(issue #30, item 7): TileLab's counter pass R times, ncu on the kernel's first launch R times (its
own cache flush), and ncu on the counter pass's own launch R times (the pass's L2 emptying,
TILELAB_HW_NCU_LAUNCH=1, as check_counters.py --ncu-launch pass), ncu with --clock-control none
and the two ratios in a run of their own, as check_counters.py collects them by default.
With --clock, each collection also reads the SM clock and the SMs' active cycles (in the same
pass as the ratios: TILELAB_HW_METRICS for TileLab's pass, read from TILELAB_HW_TRACE's lines),
to tell a difference in the counters from one in the conditions of the launch. For kernels of one
launch a run (the trace's values are summed over a run's kernels).

Usage: probe_ratio_spread.py CLI [--repeat R] [--clock] VARIANT:SIZE:'NAME=V NAME=V ...' ...
  e.g. probe_ratio_spread.py .carry/tilelab-cli \\
         'matmul.tma_wgmma:1584:PREC=3 BM=128 BN=128 BK=32 WGN=128 STAGES=4 SWIZZLE=64 INFLIGHT=1'
"""
import argparse
import json
import os
from check_counters import OURS, ncu_values, run
from probe_dram_reads import trace_values

RATIOS = ["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
          "sm__warps_active.avg.pct_of_peak_sustained_active"]
NCU = ["--clock-control", "none", "--replay-mode", "kernel"]
CLOCK = ["sm__cycles_elapsed.avg.per_second", "sm__cycles_active.avg"]


def shown(values):
    def one(v):
        text = "%.2f / %.2f" % (v.get(RATIOS[0], float("nan")), v.get(RATIOS[1], float("nan")))
        if CLOCK[0] in v:
            text += " (%.0f MHz, %.0f active cycles)" % (v[CLOCK[0]] / 1e6, v.get(CLOCK[1], float("nan")))
        return text
    return ", ".join(one(v) for v in values)


def ours_with_clock(cli, variant, args):
    """TileLab's pass with the clock metrics beside the ratios, read from the trace."""
    env = dict(os.environ, TILELAB_HW_TRACE="1", TILELAB_HW_METRICS=",".join(RATIOS + CLOCK))
    rc, _, err = run([cli, "run", variant, "--json", *OURS] + args, env=env)
    return trace_values(err.splitlines()) if rc == 0 else {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("configs", nargs="+", metavar="VARIANT:SIZE:SETS")
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--clock", action="store_true", help="also the SM clock and active cycles, each tool")
    a = ap.parse_args()
    metrics = RATIOS + (CLOCK if a.clock else [])
    print("tensor pipe busy / achieved occupancy, % of active cycles")
    for text in a.configs:
        variant, size, sets = text.split(":", 2)
        args = ["--size", size] + [x for s in sets.split() for x in ("--set", s)]
        rc, out, _ = run([a.cli, "compile", variant, "--json"] + args)
        if rc != 0:
            print(f"== {text}: does not compile (exit {rc})")
            continue
        kernel = json.loads(out)["kernel"].split("<")[0]
        ours = []
        for _ in range(a.repeat):
            if a.clock:
                ours.append(ours_with_clock(a.cli, variant, args))
                continue
            rc, out, _ = run([a.cli, "run", variant, "--json", *OURS] + args)
            ours.append(json.loads(out)["hardware"] if rc == 0 else {})
        first = [ncu_values(a.ncu, a.cli, variant, args, kernel, metrics, NCU) for _ in range(a.repeat)]
        same = [ncu_values(a.ncu, a.cli, variant, args, kernel, metrics, NCU, True) for _ in range(a.repeat)]
        print(f"== {text} ({kernel})")
        print(f"  TileLab's pass:         {shown(ours)}")
        print(f"  ncu, first launch:      {shown(first)}")
        print(f"  ncu, the pass's launch: {shown(same)}", flush=True)


if __name__ == "__main__":
    main()
