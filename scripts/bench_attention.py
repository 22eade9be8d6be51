"""The attention lessons' table (issue 34; scripts/gpu_attention_check.sh runs it on the GPU machine):
lesson 15 (attention.online_softmax) and lesson 16 (attention.flash2_mma), each configuration run once by tilelab-cli at its input type, validated against the double-precision
reference, with TileLab's unfused cuBLAS path at the same input type timed in the same run ("% of
reference"), DRAM bytes read from the hardware counters beside the model's global bytes, and,
where PyTorch is installed, its scaled_dot_product_attention at the same shape (BF16/FP16/FP32,
forward, with the causal mask where the row has it) with each backend it has — a yardstick only:
TileLab does not depend on PyTorch.
Usage: python3 scripts/bench_attention.py CLI OUT [LESSONS, e.g. 14,15,16,15c,16c,15r: "c" for the causal rows,
"15r" for lesson 15's rows-per-thread sweep, "15s" its SPLIT = 1 sweep, 14 for lesson 14's plain path (its own table)]"""
import sys

sys.path.insert(0, "scripts")
import bench_cli  # noqa: E402
from bench_cli import sets  # noqa: E402

cli, out = sys.argv[1:3]
rows, failures = [], 0
BH = 64   # batch 4 × 16 heads, as in the targets

LESSONS = sys.argv[3].split(",") if len(sys.argv) > 3 else ["15", "16"]
# (variant, N, d, precision, params, label)
CONFIGS = []
if "15" in LESSONS:
    CONFIGS += [("attention.online_softmax", 4096, d, prec, params, label) for d in (64, 128) for prec in ("bf16", "fp32")
                for params, label in [({}, "L15 BR64 BC32 TPR4"), ({"BR": 128, "TPR": 4}, "L15 BR128 TPR4")]]
    CONFIGS += [("attention.online_softmax", 2048, 128, prec, {}, "L15 BR64 BC32 TPR4") for prec in ("bf16", "fp32")]
if "16" in LESSONS:
    FLASH2 = [({}, "L16 BR64 BC64 W4 S2"), ({"STAGES": 1}, "L16 BR64 BC64 W4 S1"), ({"MINB": 2}, "L16 BR64 BC64 W4 MINB2"),
              ({"MINB": 3}, "L16 BR64 BC64 W4 MINB3"), ({"BC": 32}, "L16 BR64 BC32 W4"),
              ({"BC": 32, "MINB": 3}, "L16 BR64 BC32 W4 MINB3"), ({"BR": 128, "WARPS": 8}, "L16 BR128 BC64 W8")]
    CONFIGS += [("attention.flash2_mma", 4096, d, "bf16", params, label) for d in (64, 128) for params, label in FLASH2]
    CONFIGS += [("attention.flash2_mma", 4096, 64, "bf16", {"BR": 128, "WARPS": 4, "BC": 32}, "L16 BR128 BC32 W4")]
    CONFIGS += [("attention.flash2_mma", 4096, 128, "fp16", {}, "L16 BR64 BC64 W4 S2")]
if "15r" in LESSONS:   # register tiling: RPT query rows per thread
    RPT = [({}, "L15 RPT1 TPR4 BC32"), ({"RPT": 2}, "L15 RPT2 TPR4 BC32"), ({"RPT": 2, "BC": 16}, "L15 RPT2 TPR4 BC16"),
           ({"RPT": 4, "BC": 16}, "L15 RPT4 TPR4 BC16"), ({"RPT": 4, "TPR": 8, "BC": 16}, "L15 RPT4 TPR8 BC16"),
           ({"RPT": 8, "TPR": 8, "BC": 8}, "L15 RPT8 TPR8 BC8"), ({"RPT": 4, "TPR": 8, "BC": 16, "BR": 128}, "L15 BR128 RPT4 TPR8 BC16")]
    CONFIGS += [("attention.online_softmax", 4096, 64, prec, params, label) for prec in ("fp32", "bf16") for params, label in RPT]
    RPT128 = [({}, "L15 RPT1 TPR4 BC32"), ({"RPT": 2, "TPR": 8, "BC": 16}, "L15 RPT2 TPR8 BC16"),
              ({"RPT": 4, "TPR": 8, "BC": 16}, "L15 RPT4 TPR8 BC16"), ({"RPT": 4, "TPR": 16, "BC": 16}, "L15 RPT4 TPR16 BC16")]
    CONFIGS += [("attention.online_softmax", n, 128, prec, params, label) for n in (4096, 2048) for prec in ("fp32", "bf16")
                for params, label in RPT128]
if "15s" in LESSONS:   # SPLIT = 1: a row's threads split the keys; scores and output tiled in two dimensions
    A = {"SPLIT": 1, "BR": 128, "BC": 64, "TPR": 16, "RPT": 8}
    B = {"SPLIT": 1, "BR": 64, "BC": 32, "TPR": 8, "RPT": 4}
    label = lambda p: "L15 S1 " + " ".join(f"{k}{v}" for k, v in p.items() if k != "SPLIT")
    SPLIT = [A, B, dict(A, BR=64, RPT=4), dict(A, BC=32, TPR=8), dict(A, BC=32), dict(B, BR=128, BC=64),
             dict(B, BC=64)]
    CONFIGS += [("attention.online_softmax", 4096, 128, "fp32", {"RPT": 4, "TPR": 8, "BC": 16}, "L15 RPT4 TPR8 BC16")]
    CONFIGS += [("attention.online_softmax", 4096, 128, "fp32", p, label(p)) for p in SPLIT]
    CONFIGS += [("attention.online_softmax", 4096, 64, "fp32", p, label(p)) for p in (A, B, dict(B, BR=128, RPT=8))]
    CONFIGS += [("attention.online_softmax", 2048, 128, "fp32", p, label(p)) for p in (A, B)]
    CONFIGS += [("attention.online_softmax", 4096, 128, "bf16", A, label(A))]
    CONFIGS += [("attention.online_softmax", 4096, 128, "fp32", dict(A, CAUSAL=1), label(A) + " causal")]
if "15c" in LESSONS:
    CONFIGS += [("attention.online_softmax", 4096, d, "bf16", {"CAUSAL": 1}, "L15 BR64 BC32 TPR4 causal") for d in (64, 128)]
    # With the rows per thread that make lesson 15 fastest without the mask (RPT section of benchmarks.md).
    CAUSAL_RPT = {64: ({"CAUSAL": 1, "RPT": 4, "BC": 16}, "L15 RPT4 TPR4 BC16 causal"),
                  128: ({"CAUSAL": 1, "RPT": 4, "TPR": 8, "BC": 16}, "L15 RPT4 TPR8 BC16 causal")}
    CONFIGS += [("attention.online_softmax", 4096, d, prec, *CAUSAL_RPT[d]) for d in (64, 128) for prec in ("bf16", "fp32")]
if "16c" in LESSONS:
    CAUSAL = [({"CAUSAL": 1}, "L16 BR64 BC64 W4 causal"), ({"CAUSAL": 1, "MINB": 3}, "L16 BR64 BC64 W4 MINB3 causal"),
              ({"CAUSAL": 1, "BR": 128, "WARPS": 8}, "L16 BR128 BC64 W8 causal")]
    CONFIGS += [("attention.flash2_mma", 4096, d, "bf16", params, label) for d in (64, 128) for params, label in CAUSAL]


# Lesson 14, the plain path: three kernels; each one's time alone (the full run's), DRAM read +
# written beside the model's "each matrix crossing once" bytes. FP16 with the naive softmax at
# QSCALE = 16 is expected to fail its check (NaN): the row says so.
PLAIN = []
if "14" in LESSONS:
    PLAIN = [(2048, 64, "fp32", {}), (2048, 64, "bf16", {}), (4096, 64, "bf16", {}), (4096, 128, "bf16", {}),
             (4096, 64, "bf16", {"SOFTMAX": 2}), (4096, 64, "bf16", {"SOFTMAX": 0}), (4096, 64, "bf16", {"CAUSAL": 1}),
             (2048, 64, "fp16", {"SOFTMAX": 0, "QSCALE": 16}), (2048, 64, "fp16", {"SOFTMAX": 1, "QSCALE": 16})]


failures_plain = []


def plain_rows():
    """Lesson 14's table: [prec, N x d, params, ms, pass ms ×3, % unfused, model GB, DRAM GB, once GB, check]."""
    out_rows = []
    for n, d, prec, params in PLAIN:
        p = dict(params, PREC=prec)
        name = f"attention.plain-{prec}-{n}-{d}-" + "-".join(f"{k}{v}" for k, v in params.items())
        rc, j = bench_cli.call(cli, out, ["run", "attention.plain", "--size", f"{n}x{d}x{BH}", "--reps", "5"] + sets(p), name)
        label = " ".join(f"{k}={v}" for k, v in params.items()) or "SOFTMAX=1"
        v = (j or {}).get("validation") or {}
        if j is not None and not j.get("ok") and j.get("stage") == "validate" and j.get("may_be_wrong"):
            # Failed its check by design (the naive softmax overflowing FP16): said, not timed.
            first = (j.get("error") or "").split("first: ")[-1]
            out_rows.append([prec, f"{n}x{d}", label, "-", "-", "-", "-", "-", "-", "-", "-", "FAILED as expected: " + first[:60]])
            continue
        if j is None or not j.get("measured"):
            failures_plain.append(label)
            out_rows.append([prec, f"{n}x{d}", label, "FAIL", str((j or {}).get("error") or f"exit {rc}")[:50]] + [""] * 7)
            continue
        passes = [p.get("median_ms") for p in j.get("passes", [])]
        hw = j.get("hardware") or {}
        dram = (hw.get("dram__bytes_read.sum") or 0) + (hw.get("dram__bytes_write.sum") or 0)
        once = next((e["value"] for e in j["model"].get("extras", []) if e["quantity"].startswith("DRAM bytes")), None)
        t, ref = j["median_ms"], j.get("reference_ms")
        out_rows.append([prec, f"{n}x{d}", label, f"{t:.3f}"] + [f"{x:.3f}" if x else "-" for x in (passes + [None] * 3)[:3]]
                        + [f"{100 * ref / t:.0f}" if ref else "-", f"{j['model']['global_bytes'] / 1e9:.2f}",
                           f"{dram / 1e9:.2f}" if dram else "-", f"{once / 1e9:.2f}" if once else "-",
                           "passed" if v.get("passed") else "FAILED: " + (v.get("message") or "")[:40]])
        print("  ".join(out_rows[-1]), file=sys.stderr, flush=True)
    return out_rows


def torch_sdpa(n, d, prec, causal):
    """{backend: ms} of torch's SDPA at batch 4, 16 heads (empty without torch or CUDA)."""
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception:
        return {}
    if not torch.cuda.is_available():
        return {}
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[prec]
    q, k, v = (torch.randn(4, 16, n, d, device="cuda", dtype=dtype) for _ in range(3))
    times = {}
    for name, backend in [("math", SDPBackend.MATH), ("flash", SDPBackend.FLASH_ATTENTION),
                          ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]:
        try:
            with sdpa_kernel(backend):
                for _ in range(3):
                    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                torch.cuda.synchronize()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                ms = []
                for _ in range(10):
                    start.record()
                    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    end.record()
                    torch.cuda.synchronize()
                    ms.append(start.elapsed_time(end))
                times[name] = sorted(ms)[len(ms) // 2]
        except Exception:
            pass
    return times


def run(variant, n, d, prec, params, label, sdpa):
    global failures
    p = dict(params, PREC=prec)
    name = f"{variant}-{prec}-{n}-{d}-" + "-".join(f"{k}{v}" for k, v in params.items())
    rc, j = bench_cli.call(cli, out, ["run", variant, "--size", f"{n}x{d}x{BH}", "--reps", "5"] + sets(p), name)
    why = bench_cli.failure(rc, j)
    if why:
        failures += 1
        rows.append([prec, f"{n}x{d}", label, "FAIL", why[:60]] + [""] * 8)
        return None
    t, ref = j["median_ms"], j.get("reference_ms")
    hw = j.get("hardware") or {}
    dram = hw.get("dram__bytes_read.sum")
    model = j["model"]["global_bytes"]
    flash = sdpa.get((n, d, prec, bool(params.get("CAUSAL"))), {}).get("flash")
    # Shared-load wavefronts: the bank model's (where the variant declares its sites) and the counters'.
    banks = j["model"].get("banks") or {}
    wav_model = banks.get("load_wavefronts") if banks.get("modelled") else None
    wav_hw = hw.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
    rows.append([prec, f"{n}x{d}", label, f"{t:.3f}", f"{j['flops'] / (t * 1e-3) / 1e12:.1f}",
                 f"{ref:.3f}" if ref else "-", f"{100 * ref / t:.0f}" if ref else "-",
                 f"{100 * flash / t:.0f}" if flash else "-",
                 f"{model / 1e9:.2f}", "-" if dram is None else f"{dram / 1e9:.2f}", str(j.get("registers", "-")),
                 "-" if wav_model is None else f"{wav_model / 1e9:.3f}", "-" if wav_hw is None else f"{wav_hw / 1e9:.3f}"])
    print("  ".join(rows[-1]), file=sys.stderr, flush=True)   # as it goes, in case the call runs out
    return t


# PyTorch first, so that each row can say how it compares (same GPU, same run).
sdpa, sdpa_rows = {}, []
for n, d, prec, causal in sorted({(c[1], c[2], c[3], bool(c[4].get("CAUSAL"))) for c in CONFIGS}):
    t = torch_sdpa(n, d, prec, causal)
    if t:
        sdpa[(n, d, prec, causal)] = t
        sdpa_rows.append([prec, f"{n}x{d}", "yes" if causal else "no"] + [f"{t[b]:.3f}" if b in t else "-" for b in ("math", "flash", "efficient", "cudnn")])
for config in CONFIGS:
    run(*config, sdpa)

plain = plain_rows()
head = ["prec", "N x d", "config", "ms", "TFLOP/s", "unfused ms", "% unfused", "% SDPA flash", "model GB", "DRAM read GB",
        "regs", "ld wavefronts G (model)", "(counters)"]
print(f"attention lessons 15 (L15) and 16 (L16), BH={BH} (batch 4 × 16 heads), causal where the config says so; "
      "'% unfused' = unfused time / this time, '% SDPA flash' = PyTorch's FlashAttention-2 backend time / this time "
      "(same mask); TFLOP/s counts the scores the mask keeps")
if rows:
    bench_cli.print_table(head, rows)
if plain:
    print("\nlesson 14 (attention.plain), BH=64: three kernels; 'S', 'softmax', 'PV' = each kernel's median alone; "
          "'DRAM GB' = read + written (hardware counters); 'once GB' = the model's bytes with S and P crossing DRAM once each")
    bench_cli.print_table(["prec", "N x d", "params", "ms", "S ms", "softmax ms", "PV ms", "% unfused", "model GB", "DRAM GB",
                           "once GB", "check"], plain)
if sdpa_rows:
    print("\nPyTorch scaled_dot_product_attention, same shapes, median of 10 (ms)")
    bench_cli.print_table(["prec", "N x d", "causal", "math", "flash", "efficient", "cudnn"], sdpa_rows)
sys.exit(1 if failures or failures_plain else 0)
