"""DRAM bytes of a lesson that launches several kernels (lesson 14: attention.plain), TileLab's counter
pass against Nsight Compute for the same configuration, on the GPU machine:
  1. tilelab-cli run ... --json: the hardware counters of one launch of all the passes together (L2
     emptied before it, as ncu's cache control does by default);
  2. ncu over the first launch of each pass (the validating launch: the passes' kernels by name,
     --launch-count = passes), each kernel with ncu's own cache flush, DRAM read and written summed.
Both see the same kernels on the same inputs; ncu flushes L2 between the passes as well, so where a
pass reads what the one before it wrote (S, P) ncu can only read more from DRAM, never less: the
difference is bounded by the L2 size per pass boundary.
Usage: python3 scripts/ncu_passes.py CLI OUT [NCU]   (configurations below; a table printed last)"""
import csv
import io
import json
import os
import subprocess
import sys

cli, out = sys.argv[1:3]
ncu = sys.argv[3] if len(sys.argv) > 3 else "ncu"
CONFIGS = [("attention.plain", "2048x64x64", {"PREC": "bf16"}), ("attention.plain", "2048x64x16", {"PREC": "fp32"}),
           ("attention.plain", "4096x64x64", {"PREC": "bf16", "SOFTMAX": 2}),
           ("attention.plain", "4096x64x64", {"PREC": "bf16", "CAUSAL": 1})]
METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum"]


def sets(params):
    return [a for k, v in params.items() for a in ("--set", f"{k}={v}")]


def ours(variant, size, params, name):
    p = subprocess.run([cli, "run", variant, "--size", size, "--reps", "3", "--json"] + sets(params), capture_output=True, text=True)
    with open(os.path.join(out, name + ".tilelab.json"), "w") as f:
        f.write(p.stdout)
    j = json.loads(p.stdout)
    hw = j.get("hardware") or {}
    return j, [hw.get(m) for m in METRICS]


def theirs(variant, size, params, passes, kernel_prefix, name):
    cmd = [ncu, "--metrics", ",".join(METRICS), "--csv", "--target-processes", "all", "--kernel-name",
           "regex:" + kernel_prefix, "--launch-count", str(passes),
           cli, "run", variant, "--size", size, "--reps", "1", "--warmup", "0", "--no-reference", "--no-hardware"] + sets(params)
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(out, name + ".ncu.csv"), "w") as f:
        f.write(p.stdout + "\n" + p.stderr[-4000:])
    sums, kernels = [0.0, 0.0], set()
    text = p.stdout[p.stdout.find('"ID"'):] if '"ID"' in p.stdout else ""
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("Metric Name") in METRICS:
            value = float(row["Metric Value"].replace(",", ""))
            scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(row.get("Metric Unit", "byte"), 1)
            sums[METRICS.index(row["Metric Name"])] += value * scale
            kernels.add(row.get("ID"))
    return sums, len(kernels)


rows = []
for variant, size, params in CONFIGS:
    name = variant + "-" + size + "-" + "-".join(f"{k}{v}" for k, v in params.items())
    j, mine = ours(variant, size, params, name)
    passes = len(j.get("passes") or []) or 1
    prefix = os.path.commonprefix([p["kernel"] for p in j.get("passes") or [{"kernel": j["kernel"]}]]).split("<")[0]
    theirs_, profiled = theirs(variant, size, params, passes, prefix, name)
    once = next((e["value"] for e in j["model"].get("extras", []) if e["quantity"].startswith("DRAM bytes")), None)
    cells = [size, " ".join(f"{k}={v}" for k, v in params.items()), str(profiled)]
    for a, b in zip(mine, theirs_):
        cells += [f"{a / 1e9:.3f}" if a else "-", f"{b / 1e9:.3f}" if b else "-",
                  f"{100 * (a - b) / b:+.1f}" if a and b else "-"]
    cells += [f"{once / 1e9:.3f}" if once else "-", f"{j['model']['global_bytes'] / 1e9:.3f}"]
    rows.append(cells)
    print("  ".join(cells), file=sys.stderr, flush=True)

head = ["size", "params", "kernels (ncu)", "read GB", "ncu read", "diff %", "write GB", "ncu write", "diff %", "model once GB",
        "model requests GB"]
widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
print("DRAM bytes of one launch of every pass: TileLab's counter pass vs ncu (each kernel's first launch, summed)")
for r in [head] + rows:
    print("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)))
