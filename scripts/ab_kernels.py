#!/usr/bin/env python3
"""A/B in one call: a variant's built-in kernel against kernel files run with `--source`.

Every label runs once per round at every size, the labels alternating, so that drift of the GPU
(clocks, temperature) falls on all of them alike. Every run is validated by the CLI as usual; a
run that fails or does not validate is reported and makes the exit status 1. Prints one line per
run as it comes, then a markdown table: label, size, the median ms of each round, their mean, the
mean against the built-in kernel's at that size, % of the variant's reference (cuBLAS or the
device copy, timed in the same run) and the registers.

Usage:
  scripts/ab_kernels.py CLI VARIANT [LABEL=FILE ...] [--size 512 ...] [--set NAME=VALUE ...]
                        [--rounds 2] [--reps 10] [--cli-arg ARG ...] [--run-arg ARG ...] [--out DIR]
  e.g. scripts/ab_kernels.py build/tilelab-cli 20 mine=/tmp/temporal.cuh --size 512 --size 768 \\
         --set TSTEPS=3 --set CX=2 --run-arg=--no-hardware --run-arg=--no-count
The built-in kernel is the label "built-in" and always runs first. --cli-arg goes before `run`
(e.g. --gpu-command), --run-arg after it. Every run's JSON and stderr are kept under --out (a
temporary folder by default, named on stderr).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cli  # noqa: E402

BUILT_IN = "built-in"


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("variant")
    ap.add_argument("kernels", nargs="*", metavar="LABEL=FILE")
    ap.add_argument("--size", action="append", default=[])
    ap.add_argument("--set", action="append", default=[], dest="sets")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--cli-arg", action="append", default=[])
    ap.add_argument("--run-arg", action="append", default=[])
    ap.add_argument("--out")
    args = ap.parse_intermixed_args(argv)
    labels = [(BUILT_IN, None)]
    for item in args.kernels:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            ap.error(f"a kernel is LABEL=FILE, not '{item}'")
        if label == BUILT_IN or label in (l for l, _ in labels):
            ap.error(f"the label '{label}' is taken")
        if not os.path.isfile(path):
            ap.error(f"{path}: no such file")
        labels.append((label, path))
    if args.rounds < 1 or args.reps < 1:
        ap.error("--rounds and --reps are at least 1")
    return args, labels, args.size or [None]


def run_once(args, path, size, name):
    """One validated run (its JSON under --out as NAME): its JSON, or why it is not one."""
    cmd = [*args.cli_arg, "run", args.variant, "--reps", str(args.reps)]
    cmd += [a for s in args.sets for a in ("--set", s)]
    if size:
        cmd += ["--size", size]
    if path:
        cmd += ["--source", path]
    rc, result = bench_cli.call(args.cli, args.out, cmd + args.run_arg, name)
    return bench_cli.failure(rc, result) or result


def table(labels, sizes, runs):
    lines = ["| kernel | size | ms, each round | mean ms | against built-in | % of reference | registers |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for size in sizes:
        base = runs.get((BUILT_IN, size), [])
        base_mean = sum(r["median_ms"] for r in base) / len(base) if base else None
        for label, _ in labels:
            done = runs.get((label, size), [])
            if not done:
                lines.append(f"| {label} | {size or 'default'} | failed | | | | |")
                continue
            mean = sum(r["median_ms"] for r in done) / len(done)
            pcts = [r.get("pct_of_reference") for r in done if r.get("pct_of_reference") is not None]
            ratio = f"{mean / base_mean:.3f}" if base_mean else ""
            times = ", ".join("%.4f" % r["median_ms"] for r in done)
            pct = ", ".join("%.1f" % p for p in pcts)
            lines.append(f"| {label} | {size or 'default'} | {times} | {mean:.4f} | {ratio} | {pct} | {done[-1].get('registers')} |")
    return "\n".join(lines)


def main(argv):
    args, labels, sizes = parse_args(argv)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    else:
        args.out = tempfile.mkdtemp(prefix="ab_kernels.")
        print(f"every run's JSON under {args.out}", file=sys.stderr)
    runs, failures = {}, 0
    for rnd in range(1, args.rounds + 1):
        for size in sizes:
            for label, path in labels:
                name = f"{label}_{size or 'default'}_{rnd}".replace("/", "_")
                result = run_once(args, path, size, name)
                where = f"round {rnd} {label} {size or 'default'}"
                if isinstance(result, str):
                    failures += 1
                    print(f"{where}: FAILED: {result}", file=sys.stderr, flush=True)
                    continue
                runs.setdefault((label, size), []).append(result)
                print(f"{where}: {result['median_ms']:.4f} ms, validated", flush=True)
    print()
    print(table(labels, sizes, runs))
    if failures:
        print(f"{failures} of {args.rounds * len(sizes) * len(labels)} runs failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
