#!/usr/bin/env python3
"""How much do the counters move between two collections of the same configuration? (issue #14)

For one random configuration of each variant (drawn as check_counters.py draws them), collects
every metric R times with TileLab's CUPTI pass, R times with ncu's defaults, and once each with
ncu's clock control off, its cache control off and on the second launch (after timing), and prints, per metric, the spread of each source and
the gap between them. A metric whose ncu-to-ncu spread exceeds 2 % cannot be held to 2 % of ncu.

Usage: probe_counter_spread.py CLI [--repeat R] [--seed S] [--variants a,b] [--deadline S]
"""
import argparse, json, random, sys, time
from check_counters import run, draw_configs, ncu_values


def ours_values(cli, variant_id, args):
    rc, out, err = run([cli, "run", variant_id, "--json", "--no-count", "--no-reference", "--reps", "1",
                        "--warmup", "0"] + args)
    if rc != 0:
        sys.stderr.write(err)
        return {}
    hw = json.loads(out)["hardware"]
    return {k: x for k, x in hw.items() if "__" in k and x is not None}


def spread(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2:
        return None
    lo, hi = min(xs), max(xs)
    return (hi - lo) / max(abs(hi), 1e-9)


def pct(x):
    return "–" if x is None else f"{100 * x:.2f}%"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--variants", default="")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--deadline", type=float, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    variants = json.loads(run([a.cli, "list", "--json"])[1])["variants"]
    wanted = [v for v in a.variants.split(",") if v]
    start = time.monotonic()
    print("| variant | config | metric | ours (each) | ncu (each) | ncu clock none | ncu cache none | ncu 2nd launch | ours spread | ncu spread | gap |")
    print("| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for v in variants:
        if wanted and v["id"] not in wanted:
            continue
        if a.deadline and time.monotonic() - start > a.deadline:
            print(f"\n(deadline of {a.deadline} s reached)")
            break
        for args, compiled in draw_configs(a.cli, v, 1, rng):
            kernel = compiled["kernel"].split("<")[0]
            ours = [ours_values(a.cli, v["id"], args) for _ in range(a.repeat)]
            names = sorted(ours[0])
            if not names:
                print(f"| {v['id']} | {' '.join(args)} | no counters | | | | | | | |")
                continue
            theirs = [ncu_values(a.ncu, a.cli, v["id"], args, kernel, names) for _ in range(a.repeat)]
            clock = ncu_values(a.ncu, a.cli, v["id"], args, kernel, names, ["--clock-control", "none"])
            cache = ncu_values(a.ncu, a.cli, v["id"], args, kernel, names, ["--cache-control", "none"])
            later = ncu_values(a.ncu, a.cli, v["id"], args, kernel, names, ["--launch-skip", "1"])
            config = " ".join(x for x in args if x != "--set")
            for m in names:
                o = [d.get(m) for d in ours]
                t = [d.get(m) for d in theirs]
                gap = None
                if all(x is not None for x in o + t):
                    mo, mt = sum(o) / len(o), sum(t) / len(t)
                    gap = abs(mo - mt) / max(abs(mt), 1e-9)
                fmt = lambda xs: ", ".join("?" if x is None else f"{x:.6g}" for x in xs)
                print(f"| {v['id']} | {config} | {m} | {fmt(o)} | {fmt(t)} | {fmt([clock.get(m)])} | "
                      f"{fmt([cache.get(m)])} | {fmt([later.get(m)])} | {pct(spread(o))} | {pct(spread(t))} | {pct(gap)} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
