"""Stops TileLab processes an earlier command left running on the GPU machine (scripts/stray_processes.sh
says which and why): a check stopped by `timeout` can leave its app and GPU workers on the GPU, and the
next check would sample and count beside them (on 2026-12-04 a GUI check cut by `timeout 300` was
followed by check_stalls.py in the same call)."""
import os, subprocess, sys


def stop_stray_processes(who):
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run(["bash", "-c", f". '{here}/stray_processes.sh'; stop_tilelab_processes"],
                       capture_output=True, text=True)
    n = p.stdout.strip() or "0"
    if n != "0":
        print(f"{who}: stopped {n} TileLab processes left running", file=sys.stderr)
