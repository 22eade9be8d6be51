"""The tensor-core ladder in one table (issue 36): each rung's lesson defaults at BF16, run by
tilelab-cli (20 timed repetitions, L2 flushed, validated against cuBLAS BF16 timed in the same
run), then one launch of the same configuration under Nsight Compute for the tensor pipe's share
of the SMs' active cycles, the issue slots used and L2's throughput. Run on the GPU machine.
After the table, one row more: NVIDIA's fastest mma.sync kernel for the same product, lesson 13's
yardstick (scripts/cublaslt_kernels.cu, built with nvcc on the machine; LADDER_VENDOR=0 skips it).
Usage: python3 scripts/tensor_ladder.py CLI OUT [SIZE]   (SIZE default 4096; logs under OUT)"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, "scripts")
import bench_cli  # noqa: E402
from bench_cli import sets  # noqa: E402

cli, out = sys.argv[1:3]
size = sys.argv[3] if len(sys.argv) > 3 else "4096"
os.makedirs(out, exist_ok=True)

# (lesson, variant, params, label): the lessons' defaults, then lesson 22's two best steps.
RUNGS = [("12", "matmul.wmma", {}, "WMMA fragments"),
         ("13", "matmul.mma", {}, "mma.sync + ldmatrix + swizzle"),
         ("21", "matmul.tma_wgmma", {}, "TMA + wgmma, one warpgroup"),
         ("22", "matmul.warp_specialized", {}, "warp-specialised, 2 consumers"),
         ("22", "matmul.warp_specialized", {"CLUSTER": 2}, "the same, CLUSTER=2"),
         ("22", "matmul.warp_specialized", {"PINGPONG": 1, "BN": 128, "CLUSTER": 2}, "consumers in turns, CLUSTER=2")]
METRICS = {"tensor pipe %": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
           "issue %": "smsp__issue_active.avg.pct_of_peak_sustained_active",
           "L2 %": "lts__throughput.avg.pct_of_peak_sustained_elapsed"}


def ncu(variant, params, name):
    """One launch of the kernel under Nsight Compute: {metric: value} (empty if it failed)."""
    cmd = ["ncu", "--target-processes", "all", "-k", "regex:matmul", "-c", "1", "--metrics", ",".join(METRICS.values()),
           cli, "run", variant, "--size", size, "--reps", "1", "--warmup", "0", "--no-reference", "--no-hardware"] + sets(params)
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(out, name + ".ncu.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    got = {}
    for label, metric in METRICS.items():
        m = re.search(re.escape(metric) + r"\s+\S+\s+([0-9.,]+)", p.stdout)
        if m:
            got[label] = m.group(1).replace(",", "")
    return got


def vendor_mma_row():
    """The yardstick under lesson 13: NVIDIA's fastest mma.sync kernel for the same product (cuBLAS's
    CUTLASS sm80 kernels), by scripts/cublaslt_kernels.cu built here with nvcc; its % is against
    cuBLAS's default timed in that tool's own process. A row of dashes if it cannot be built or run."""
    label = "NVIDIA's fastest mma.sync (cuBLAS's CUTLASS sm80; its own cuBLAS timing)"
    row = ["-", label] + ["-"] * (4 + len(METRICS))
    cupti = [os.path.dirname(p) for p in glob.glob("/usr/local/cuda/**/libcupti.so", recursive=True)]
    tool = os.path.join(out, "cublaslt_kernels")
    lib = cupti[0] if cupti else "/usr/local/cuda/lib64"
    build = subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-o", tool, "scripts/cublaslt_kernels.cu", "-lcublasLt",
                            "-L" + lib, "-lcupti"], capture_output=True, text=True) if not os.path.exists(tool) else None
    if build and build.returncode != 0:
        row[2] = "not built"
        return row
    env = dict(os.environ, LT_FAMILY="mma.sync", LD_LIBRARY_PATH=lib + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
    run = subprocess.run([tool, size, "bf16", "1"], capture_output=True, text=True, env=env)
    with open(os.path.join(out, "cublaslt_kernels.md"), "w") as f:
        f.write(run.stdout + run.stderr)
    return parse_vendor_row(run.stdout, row)


def parse_vendor_row(text, row):
    """Fills `row` from the tool's output: its default's ms and its first mma.sync row's ms."""
    default = re.search(r"^default: ([0-9.]+) ms", text, re.M)
    first = re.search(r"^\| mma\.sync \(sm80\) \|(?:[^|]*\|){4}\s*([0-9.]+)\s*\|", text, re.M)
    if not default or not first:
        row[2] = "no mma.sync kernel timed"
        return row
    t, ref = float(first.group(1)), float(default.group(1))
    flops = 2.0 * float(size) ** 3
    row[2:6] = [f"{t:.3f}", f"{flops / (t * 1e-3) / 1e12:.1f}", f"{ref:.3f}", f"{100 * ref / t:.1f}"]
    return row


rows, failures = [], 0
for lesson, variant, params, label in RUNGS:
    p = dict(params, PREC="bf16")
    name = f"{lesson}-" + "-".join(f"{k}{v}" for k, v in p.items())
    rc, j = bench_cli.call(cli, out, ["run", variant, "--size", size, "--reps", "20"] + sets(p), name)
    why = bench_cli.failure(rc, j)
    if why:
        failures += 1
        rows.append([lesson, label, "FAIL", why[:60]] + [""] * 5)
        continue
    t, ref = j["median_ms"], j.get("reference_ms")
    hw = ncu(variant, p, name)
    rows.append([lesson, label, f"{t:.3f}", f"{j['flops'] / (t * 1e-3) / 1e12:.1f}", f"{ref:.3f}" if ref else "-",
                 f"{100 * ref / t:.1f}" if ref else "-"] + [hw.get(k, "-") for k in METRICS])
head = ["lesson", "rung", "ms", "TFLOP/s", "cuBLAS ms", "% cuBLAS"] + list(METRICS)
bench_cli.print_table(head, rows)
sys.stdout.flush()   # the ladder stands even if a time limit cuts the yardstick below
if os.environ.get("LADDER_VENDOR", "1") != "0":
    print()
    bench_cli.print_table(head, [vendor_mma_row()])
sys.exit(1 if failures else 0)
