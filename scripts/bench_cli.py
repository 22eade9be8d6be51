"""What the matmul benchmark scripts (scripts/bench_matmul_*.sh) share: running tilelab-cli with
--json, keeping its output under OUT, and turning a parameter dict into --set flags."""
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


def sets(params):
    """{"TILE": 32} -> ["--set", "TILE=32"]."""
    args = []
    for k, v in params.items():
        args += ["--set", f"{k}={v}"]
    return args
