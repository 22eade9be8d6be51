#!/usr/bin/env python3
"""What four blocks a multiprocessor would buy lesson 20's interior walk (issue 35): a bound, timed
by Nsight Compute, not a kernel to use.

The two-column kernel (kernels/stencil/temporal.cuh) has three copies of its walk; ptxas gives the
whole kernel the registers of the hungriest (168 at CX=2 TSTEPS=3 TY=4 RY=6: three blocks an SM),
while the interior walk alone needs 128 (four). This script writes two variants of the kernel file
in which the blocks at the grid's edge return at once (their cells are left unwritten, so the run
does not validate: ncu's time of the first launch is the figure):
  bound3: the edge walks stay in the code, never taken, __launch_bounds__(128, 3): 168 registers;
  bound4: only the interior walk: 126 registers, four blocks an SM;
and times the landed kernel, bound3 and bound4 with ncu (--clock-control none, the first launch, as
check_counters.py collects) at each size. bound4 against bound3 is what four blocks buy the interior blocks; the landed kernel against
bound3 what the edge blocks cost.

Usage: scripts/temporal_interior_bound.py CLI [--size 512 --size 768] [--out DIR]   (GPU machine)
       scripts/temporal_interior_bound.py --write-only DIR   (the two files, any machine)
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counters import ncu_values  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = os.path.join(ROOT, "kernels", "stencil", "temporal.cuh")
SETS = ["STEPS=64", "CX=2", "TY=4", "ZC=64", "TSTEPS=3", "RY=6", "AHEAD=1"]
METRICS = ["gpu__time_duration.sum", "smsp__inst_executed.sum",
           "smsp__issue_active.avg.pct_of_peak_sustained_active", "sm__warps_active.avg.pct_of_peak_sustained_active"]


def variants():
    """{"bound3": text, "bound4": text} from the kernel file; exits if its dispatch has changed."""
    s = open(KERNEL).read()
    at = s.index("temporal_stencil_two_columns(")
    head, tail = s[:at], s[at:]
    dispatch = re.search(r"    if \(!region_at_edge\(rx, W, ry, H, nx, ny\)\) walk\(Walk<kInterior>\{\}\);\n"
                         r"    else if \(.*\) walk\(Walk<kEdgeX>\{\}\);\n    else walk\(Walk<kEdge>\{\}\);", tail)
    bounds = head.rfind("__launch_bounds__(32 * TY)")
    if not dispatch or bounds < 0:
        sys.exit("temporal_interior_bound: the two-column kernel's dispatch or launch bounds changed; update this script")
    edge_return = "    if (region_at_edge(rx, W, ry, H, nx, ny)) return;   // A BOUND: edge cells are left unwritten\n"
    three = tail.replace(dispatch.group(0), edge_return +
                         "    if (nx < 0) { walk(Walk<kEdgeX>{}); walk(Walk<kEdge>{}); }   // never: keeps their registers\n"
                         "    walk(Walk<kInterior>{});")
    four = tail.replace(dispatch.group(0), edge_return + "    walk(Walk<kInterior>{});")
    capped = head[:bounds] + "__launch_bounds__(32 * TY, 3)" + head[bounds + len("__launch_bounds__(32 * TY)"):]
    return {"bound3": capped + three, "bound4": head + four}


def ncu_row(cli, size, source):
    """ncu's figures for the first launch of lesson 20's kernel (check_counters.py's collection)."""
    args = ["--size", str(size)] + [x for s in SETS for x in ("--set", s)] + (["--source", source] if source else [])
    values = ncu_values("ncu", cli, "20", args, "temporal_stencil_two_columns", METRICS, ["--clock-control", "none"])
    return [("%.0f" if m.endswith(".sum") else "%.2f") % values[m] if m in values else "?" for m in METRICS]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli", nargs="?")
    ap.add_argument("--size", type=int, action="append", default=[])
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/temporal_interior_bound"))
    ap.add_argument("--write-only", metavar="DIR")
    a = ap.parse_args()
    out = a.write_only or a.out
    os.makedirs(out, exist_ok=True)
    paths = {}
    for name, text in variants().items():
        paths[name] = os.path.join(out, name + ".cuh")
        with open(paths[name], "w") as f:
            f.write(text)
    if a.write_only:
        print("\n".join(paths.values()))
        return 0
    if not a.cli:
        ap.error("CLI is required unless --write-only")
    print("| size | kernel | ncu time (ns) | warp instructions | issue active % | warps active % |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for size in a.size or [512, 768]:
        for name, source in [("landed", None), ("bound3", paths["bound3"]), ("bound4", paths["bound4"])]:
            print(f"| {size}³ | {name} | " + " | ".join(ncu_row(a.cli, size, source)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
