"""The tensor-core lessons' timing table (scripts/gpu_tensor_check.sh): every configuration run once
by tilelab-cli at its precision, validated against cuBLAS at the same precision measured in the same
run; counted == model; shared-load wavefronts and bank conflicts, the model's beside the hardware's.
Usage: python3 scripts/bench_tensor.py LESSON VARIANT CLI OUT
BENCH_ONLY=TEXT runs only the rows whose label holds TEXT, and the defaults beside them; TEXT|TEXT...
any of several."""
import os
import sys

sys.path.insert(0, "scripts")
import bench_cli  # noqa: E402
from bench_cli import sets  # noqa: E402

lesson, variant, cli, out = sys.argv[1:5]
rows, failures = [], 0

# The ladders: (precisions, params, label); each is run at 4096³, the last rows also at 8192³.
LADDERS = {
    "12": [(["bf16", "fp16", "tf32"], {}, "defaults 128x128 64x32 BK32 S2"),
           (["bf16", "fp16", "tf32"], {"STAGES": 1}, "STAGES=1"),
           (["bf16", "fp16", "tf32"], {"STAGES": 3}, "STAGES=3"),
           (["bf16"], {"STAGES": 4}, "STAGES=4"), (["bf16"], {"BK": 16}, "BK=16"),
           (["bf16"], {"WM": 64, "WN": 64}, "warps 64x64 (4 warps)"),
           (["bf16"], {"BN": 256, "WM": 64, "WN": 64}, "128x256 64x64"),
           (["bf16"], {"BM": 64, "BN": 64, "WM": 32, "WN": 32}, "64x64 32x32")],
    "13": [(["bf16"], {"LAYOUT": 0, "STAGES": 1, "FRAGS": 1, "GROUP": 1}, "plain, 1 stage"),
           (["bf16"], {"LAYOUT": 1, "STAGES": 1, "FRAGS": 1, "GROUP": 1}, "padded, 1 stage"),
           (["bf16"], {"LAYOUT": 2, "STAGES": 1, "FRAGS": 1, "GROUP": 1}, "swizzled, 1 stage"),
           (["bf16"], {"STAGES": 2, "FRAGS": 1, "GROUP": 1}, "swizzled, 2 stages"),
           (["bf16"], {"STAGES": 3, "FRAGS": 1, "GROUP": 1}, "swizzled, 3 stages"),
           (["bf16"], {"STAGES": 4, "FRAGS": 1, "GROUP": 1}, "swizzled, 4 stages"),
           (["bf16"], {"STAGES": 3, "FRAGS": 2, "GROUP": 1}, "3 stages, FRAGS=2"),
           (["bf16"], {"STAGES": 4, "FRAGS": 2, "GROUP": 1}, "4 stages, FRAGS=2"),
           (["bf16", "fp16", "tf32"], {}, "defaults (3 stages, FRAGS=2, GROUP=8)"),
           (["tf32"], {"FRAGS": 1}, "defaults, FRAGS=1"),
           (["bf16"], {"LAYOUT": 0}, "defaults, plain"),
           (["bf16"], {"LAYOUT": 1}, "defaults, padded"),
           (["bf16"], {"BK": 64}, "BK=64"),
           (["bf16"], {"WN": 32}, "128x128 64x32 (8 warps)"),
           (["bf16"], {"BM": 256, "STAGES": 4}, "256x128 S4"),
           (["bf16", "fp16"], {"BM": 256, "BK": 64}, "256x128 BK=64"),
           (["bf16"], {"BN": 256, "BK": 64, "STAGES": 4}, "128x256 BK=64 S4"),
           (["tf32"], {"BM": 256, "FRAGS": 1}, "256x128 FRAGS=1"),
           (["tf32"], {"BN": 256, "FRAGS": 1, "STAGES": 4}, "128x256 FRAGS=1 S4"),
           # Rings deeper than 4 beside the best of 3 and 4 (cuBLAS's own mma.sync kernels for this
           # product, CUTLASS's sm80 ones, run 256x128 or 128x256 with BK 32 and 6 stages); 128x256
           # BK 64 with 4 stages is the row "128x256 BK=64 S4" above (BENCH_ONLY="deep ring|128x256 BK=64 S4").
           (["bf16"], {"BN": 256, "BK": 64}, "deep ring: 128x256 BK64 S3"),
           (["bf16"], {"BM": 256, "BK": 64, "STAGES": 4}, "deep ring: 256x128 BK64 S4"),
           (["bf16"], {"BM": 256, "STAGES": 5}, "deep ring: 256x128 BK32 S5"),
           (["bf16", "fp16"], {"BM": 256, "STAGES": 6}, "deep ring: 256x128 BK32 S6"),
           (["bf16"], {"BN": 256, "STAGES": 6}, "deep ring: 128x256 BK32 S6"),
           (["tf32"], {"BM": 256, "FRAGS": 1, "STAGES": 6, "BK": 16}, "deep ring: tf32 256x128 BK16 S6 FRAGS=1"),
           # TF32 with FRAGS = 2 and no spill (BENCH_ONLY="tf32 tiles"): at the defaults ptxas spills
           # 256 B (255 registers); these warp tiles and rings fit (H100, 2026-12-06, rounding by an
           # integer add: 210, 249, 255, 205 and 128 registers, none spilled).
           (["tf32"], {"WN": 32}, "tf32 tiles: 128x128 64x32 FRAGS=2"),
           (["tf32"], {"WM": 32}, "tf32 tiles: 128x128 32x64 FRAGS=2"),
           (["tf32"], {"BN": 256, "BK": 16, "STAGES": 4}, "tf32 tiles: 128x256 BK16 S4 FRAGS=2"),
           (["tf32"], {"BM": 64, "BN": 256, "WN": 32}, "tf32 tiles: 64x256 64x32 FRAGS=2"),
           (["tf32"], {"WN": 32, "FRAGS": 1}, "tf32 tiles: 128x128 64x32 FRAGS=1"),
           (["tf32"], {"BN": 256, "FRAGS": 1, "STAGES": 4}, "tf32 tiles: 128x256 FRAGS=1 S4 (the best so far)"),
           # TF32 truncated by the tensor cores (ROUND = 0) instead of rounded by an integer add.
           (["tf32"], {"FRAGS": 1, "ROUND": 0}, "tf32 ROUND=0: defaults FRAGS=1"),
           (["tf32"], {"WN": 32, "ROUND": 0}, "tf32 ROUND=0: 128x128 64x32 FRAGS=2"),
           (["tf32"], {"BN": 256, "BK": 16, "STAGES": 4, "ROUND": 0}, "tf32 ROUND=0: 128x256 BK16 S4 FRAGS=2"),
           (["tf32"], {"BM": 256, "BK": 16, "STAGES": 4, "ROUND": 0}, "tf32 ROUND=0: 256x128 BK16 S4 FRAGS=2")],
    "21": [(["bf16", "fp16"], {}, "defaults 128x128 BK64 WGN128 S3 SW128 INFLIGHT1"),
           (["bf16"], {"INFLIGHT": 0}, "INFLIGHT=0"),
           (["bf16"], {"STAGES": 1, "INFLIGHT": 0}, "1 stage, INFLIGHT=0"),
           (["bf16"], {"STAGES": 2}, "2 stages"),
           (["bf16"], {"STAGES": 4}, "4 stages"),
           (["bf16"], {"STAGES": 4, "INFLIGHT": 0}, "4 stages, INFLIGHT=0"),
           (["bf16"], {"STAGES": 6}, "6 stages"),
           (["bf16"], {"WGN": 64}, "WGN=64"),
           (["bf16"], {"SWIZZLE": 64}, "SWIZZLE=64"),
           (["bf16"], {"SWIZZLE": 32}, "SWIZZLE=32"),
           (["bf16"], {"BM": 64, "BN": 256, "WGN": 256}, "64x256 WGN256"),
           (["bf16"], {"BM": 64, "BN": 256, "WGN": 256, "STAGES": 4}, "64x256 WGN256 S4"),
           (["bf16"], {"BK": 128}, "BK=128"),
           (["bf16"], {"BM": 64, "BN": 128, "STAGES": 6}, "64x128 S6 (2 blocks/SM)")],
    "22": [(["bf16", "fp16"], {}, "defaults 128x256, 2 consumers, S4, setmaxnreg, persistent, GROUP 8"),
           (["bf16"], {"SETMAXNREG": 0}, "SETMAXNREG=0"),
           (["bf16"], {"PERSISTENT": 0}, "PERSISTENT=0"),
           (["bf16"], {"GROUP": 1}, "GROUP=1"),
           (["bf16"], {"PERSISTENT": 0, "GROUP": 1}, "PERSISTENT=0 GROUP=1"),
           (["bf16"], {"CONSUMERS": 1}, "1 consumer (64x256)"),
           (["bf16"], {"BN": 128}, "BN=128 (256x128)"),
           (["bf16"], {"BN": 128, "CONSUMERS": 1, "STAGES": 6}, "BN=128 1 consumer S6"),
           (["bf16"], {"STAGES": 2}, "2 stages"),
           (["bf16"], {"STAGES": 3}, "3 stages"),
           (["bf16", "fp16"], {"CLUSTER": 2}, "CLUSTER=2 (B multicast)"),
           (["bf16"], {"CLUSTER": 4}, "CLUSTER=4 (B multicast)"),
           (["bf16"], {"CLUSTER": 2, "GROUP": 16}, "CLUSTER=2 GROUP=16"),
           (["bf16", "fp16"], {"PINGPONG": 1, "BN": 128, "STAGES": 6}, "PINGPONG=1 128x128 S6"),
           (["bf16"], {"PINGPONG": 1, "BN": 128, "STAGES": 4}, "PINGPONG=1 128x128 S4"),
           (["bf16"], {"PINGPONG": 1, "BN": 128, "STAGES": 7}, "PINGPONG=1 128x128 S7"),
           (["bf16", "fp16"], {"PINGPONG": 1, "BN": 128, "STAGES": 6, "CLUSTER": 2}, "PINGPONG=1 128x128 S6 CLUSTER=2"),
           (["bf16"], {"PINGPONG": 1, "BN": 256, "STAGES": 5}, "PINGPONG=1 64x256 S5"),
           (["bf16"], {"PINGPONG": 1, "BN": 256, "STAGES": 5, "CLUSTER": 2}, "PINGPONG=1 64x256 S5 CLUSTER=2"),
           (["bf16", "fp16"], {"EPILOGUE": 1}, "EPILOGUE=1 (C by TMA)"),
           (["bf16", "fp16"], {"EPILOGUE": 1, "CLUSTER": 2}, "EPILOGUE=1 CLUSTER=2"),
           (["bf16"], {"EPILOGUE": 1, "PINGPONG": 1, "BN": 128, "CLUSTER": 2}, "EPILOGUE=1 PINGPONG=1 128x128 S4 CLUSTER=2"),
           (["bf16"], {"ORDER": 1}, "ORDER=1 (Hilbert)"),
           (["bf16", "fp16"], {"ORDER": 1, "EPILOGUE": 1, "CLUSTER": 2}, "ORDER=1 EPILOGUE=1 CLUSTER=2"),
           (["bf16", "fp16"], {"STREAMK": 1}, "STREAMK=1 (stream-K, last round)"),
           (["bf16", "fp16"], {"STREAMK": 1, "EPILOGUE": 1}, "STREAMK=1 EPILOGUE=1"),
           (["bf16", "fp16"], {"STREAMK": 1, "EPILOGUE": 1, "CLUSTER": 2}, "STREAMK=1 EPILOGUE=1 CLUSTER=2"),
           (["bf16"], {"STREAMK": 2}, "STREAMK=2 (last two rounds)"),
           (["bf16", "fp16"], {"STREAMK": 2, "EPILOGUE": 1, "CLUSTER": 2}, "STREAMK=2 EPILOGUE=1 CLUSTER=2")],
}
BIG = {"12": [({}, "defaults"), ({"BN": 256, "WM": 64, "WN": 64}, "128x256 64x64")],
       "13": [({}, "defaults"), ({"GROUP": 1}, "defaults, GROUP=1"), ({"BM": 256, "BK": 64}, "256x128 BK=64"),
              ({"BM": 256, "BK": 64, "GROUP": 1}, "256x128 BK=64 GROUP=1"),
              ({"BM": 256, "STAGES": 6}, "deep ring: 256x128 BK32 S6"), ({"BN": 256, "BK": 64}, "deep ring: 128x256 BK64 S3")],
       "21": [({}, "defaults"), ({"STAGES": 4}, "4 stages"), ({"BM": 64, "BN": 256, "WGN": 256, "STAGES": 4}, "64x256 WGN256 S4")],
       "22": [({}, "defaults"), ({"PERSISTENT": 0}, "PERSISTENT=0"), ({"GROUP": 1}, "GROUP=1"), ({"SETMAXNREG": 0}, "SETMAXNREG=0"),
             ({"CLUSTER": 2}, "CLUSTER=2"), ({"CLUSTER": 4}, "CLUSTER=4"),
             ({"PINGPONG": 1, "BN": 128, "STAGES": 6}, "PINGPONG=1 128x128 S6"),
             ({"PINGPONG": 1, "BN": 128, "STAGES": 6, "CLUSTER": 2}, "PINGPONG=1 128x128 S6 CLUSTER=2"),
             ({"EPILOGUE": 1}, "EPILOGUE=1"), ({"EPILOGUE": 1, "CLUSTER": 2}, "EPILOGUE=1 CLUSTER=2"),
             ({"ORDER": 1}, "ORDER=1"), ({"ORDER": 1, "EPILOGUE": 1, "CLUSTER": 2}, "ORDER=1 EPILOGUE=1 CLUSTER=2"),
             ({"STREAMK": 1, "EPILOGUE": 1}, "STREAMK=1 EPILOGUE=1"),
             ({"STREAMK": 1, "EPILOGUE": 1, "CLUSTER": 2}, "STREAMK=1 EPILOGUE=1 CLUSTER=2"),
             ({"STREAMK": 2, "EPILOGUE": 1, "CLUSTER": 2}, "STREAMK=2 EPILOGUE=1 CLUSTER=2")]}
ONLY = os.environ.get("BENCH_ONLY", "")


def chosen(label):
    return not ONLY or any(part in label for part in ONLY.split("|")) or label.startswith("defaults")


def run(prec, params, size, label):
    global failures
    p = dict(params, PREC=prec)
    name = f"{prec}-{size}-" + "-".join(f"{k}{v}" for k, v in params.items())
    rc, j = bench_cli.call(cli, out, ["run", variant, "--size", str(size), "--reps", "20"] + sets(p), name)
    why = bench_cli.failure(rc, j)
    if why:
        failures += 1
        rows.append([prec, str(size), label, "FAIL", why[:60]] + [""] * 6)
        return
    t, ref = j["median_ms"], j.get("reference_ms")
    counted, model = j.get("counted"), j["model"]["total"]
    same = "-" if not counted else ("yes" if all(counted[k] == model[k] for k in model) else "NO")
    hw = j.get("hardware") or {}
    banks = j["model"].get("banks") or {}

    def pair(model_value, metric):
        got = hw.get(metric)
        mv = "-" if model_value is None else f"{model_value / 1e6:.2f}"
        return mv + "/" + ("-" if got is None else f"{got / 1e6:.2f}")
    rows.append([prec, str(size), label, f"{t:.3f}", f"{j['flops'] / (t * 1e-3) / 1e12:.1f}",
                 f"{ref:.3f}" if ref else "-", f"{100 * ref / t:.1f}" if ref else "-", str(j.get("registers", "-")), same,
                 pair(banks.get("load_wavefronts"), "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
                 pair(banks.get("load_conflicts"), "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")])


for precs, params, label in LADDERS[lesson]:
    for prec in (precs if chosen(label) else []):
        run(prec, params, 4096, label)
for params, label in BIG[lesson]:
    if chosen(label):
        run("bf16", params, 8192, label)
head = ["prec", "size", "config", "ms", "TFLOP/s", "cuBLAS ms", "% cuBLAS", "regs", "count=model",
        "ld wavefronts M model/hw", "ld conflicts M model/hw"]
bench_cli.print_table(head, rows)
sys.exit(1 if failures else 0)
