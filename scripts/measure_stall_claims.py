#!/usr/bin/env python3
"""Measure every stall claim the lessons make, on this machine's GPU.

A lesson states where its kernels wait as a measured claim:
    <!-- measured: H200, 2026-11-29, 1024³ (docs/benchmarks.md) | TILE=16: 24% global_memory | ... -->
Each claim names a configuration (on top of its step's parameters), a share and a reason group.
This script runs each one with `tilelab-cli run NN --step S --size N --set ... --stalls --json`
(no counters, no reference, three timed repetitions) and prints the claim beside the share the
sampler gives now, the top group, and the periods it sampled at (a period left out is named):
run it after any change to how the worker samples, and write the new numbers into the lessons.

Usage: measure_stall_claims.py CLI [--lessons 02,13] [--json FILE]
       measure_stall_claims.py --list   (the claims and the commands, nothing run)
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLAIM = re.compile(r"^([0-9.]+)% ([a-z_]+)$")


def size_arg(text):
    """'1024³' -> '1024'; '2048²' -> '2048'; '132x131072x1' as it is."""
    m = re.match(r"^(\d+)[²³]$", text)
    return m.group(1) if m else text


def claims_of(lesson_dir):
    """(step, size, {param: value}, percent, group, gpu, date) for each stall claim of lesson.md."""
    step = 0
    out = []
    for line in (lesson_dir / "lesson.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            step += 1
        m = re.match(r"^<!-- measured: (.*) -->$", line.strip())
        if not m or step == 0:
            continue
        head, *answers = [p.strip() for p in m.group(1).split("|")]
        fields = [f.strip() for f in head.split(",")]
        if len(fields) < 3:
            continue
        gpu, date, size = fields[0], fields[1], fields[2].split(" ")[0]
        for a in answers:
            config, _, value = a.rpartition(":")
            c = CLAIM.match(value.strip())
            if not c:
                continue   # a time, not a stall claim
            params = dict(p.split("=", 1) for p in config.split())
            out.append((step, size, params, float(c.group(1)), c.group(2), gpu, date))
    return out


def command(cli, lesson, step, size, params):
    cmd = [cli, "run", lesson, "--step", str(step), "--size", size_arg(size), "--stalls", "--json",
           "--no-hardware", "--no-count", "--no-reference", "--reps", "3"]
    for k, v in params.items():
        cmd += ["--set", f"{k}={v}"]
    return cmd


def measure(cli, lesson, step, size, params):
    p = subprocess.run(command(cli, lesson, step, size, params), capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}"
    stalls = json.loads(p.stdout).get("stalls") or {}
    if stalls.get("status") not in ("ok", "overflow") or not stalls.get("total"):
        return None, f"stalls {stalls.get('status')}: {stalls.get('reason', '')}"
    return stalls, ""


def periods(s):
    first, last, out = s.get("period_log2", 0), s.get("last_period_log2", 0), s.get("left_out_period_log2", 0)
    shown = [p for p in range(first, max(first, last) + 1) if p != out]
    text = "+".join(f"2^{p}" for p in shown)
    return text + (f", 2^{out} left out ({s.get('period_spread', 0):.1f} pp)" if out else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cli", nargs="?", default="tilelab-cli")
    ap.add_argument("--list", action="store_true", help="print each claim and its command; run nothing")
    ap.add_argument("--lessons", default="", help="lesson numbers, e.g. 02,13 (default: every lesson with a claim)")
    ap.add_argument("--json", default="", help="write every measured result here")
    a = ap.parse_args()
    wanted = set(a.lessons.split(",")) if a.lessons else None
    rows, kept, seen = [], [], {}
    for d in sorted((ROOT / "lessons").iterdir()):
        number = d.name[:2]
        if not (d / "lesson.md").exists() or (wanted and number not in wanted):
            continue
        for step, size, params, percent, group, gpu, date in claims_of(d):
            if a.list:
                print(f"{number} step {step}: {percent:g}% {group} ({gpu}, {date}): "
                      + " ".join(command(a.cli, number, step, size, params)))
                continue
            key = (number, step, size, tuple(sorted(params.items())))
            if key not in seen:   # a configuration two claims name is run once
                seen[key] = measure(a.cli, number, step, size, params)
            s, why = seen[key]
            config = " ".join(f"{k}={v}" for k, v in params.items())
            claim = f"{percent:g}% {group} ({gpu}, {date})"
            if s is None:
                rows.append(f"| {number} | {step} | {config} | {claim} | – | – | {why} |")
                continue
            total = s["total"]
            share = 100.0 * s["counts"].get(group, 0) / total
            top = max(s["counts"], key=lambda g: s["counts"][g])
            rows.append(f"| {number} | {step} | {config} | {claim} | {share:.1f}% | {top} {100.0 * s['counts'][top] / total:.0f}% | {periods(s)} |")
            kept.append({"lesson": number, "step": step, "size": size, "params": params, "claim": [percent, group], "stalls": s})
            print(rows[-1], file=sys.stderr, flush=True)
    if a.list:
        return
    print("| lesson | step | configuration | claim | share now | top group now | periods |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    if a.json:
        Path(a.json).write_text(json.dumps(kept))


if __name__ == "__main__":
    main()
