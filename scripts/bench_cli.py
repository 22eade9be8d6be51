"""What the benchmark scripts (scripts/bench_*.py) share: running tilelab-cli with --json, keeping
its output under OUT, turning a parameter dict into --set flags, and printing a table."""
import json
import os
import subprocess
import sys


def call(cli, out, args, name):
    """Runs tilelab-cli with --json; keeps stdout/stderr under OUT; returns (exit code, JSON or None)."""
    cmd = [cli] + args + ["--json"]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(out, name + ".json"), "w") as f:
        f.write(p.stdout)
    with open(os.path.join(out, name + ".err"), "w") as f:
        f.write(p.stderr)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        return p.returncode, None


def failure(rc, j):
    """None when a run (exit code `rc`, JSON `j`) was measured and its result validated; else why
    not, in one line."""
    if j is not None and j.get("ok") and j.get("measured") and (j.get("validation") or {}).get("passed"):
        return None
    if j is None:
        return "no JSON"
    not_measured = None if j.get("measured") else j.get("no_gpu_reason")
    return j.get("error") or (j.get("validation") or {}).get("message") or not_measured or f"exit {rc}"


def sets(params):
    """{"TILE": 32} -> ["--set", "TILE=32"]."""
    args = []
    for k, v in params.items():
        args += ["--set", f"{k}={v}"]
    return args


def print_table(head, rows):
    """The rows under their header, each column padded to its widest cell."""
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)))
