#!/usr/bin/env python3
"""Checks TileLab's stall samples against Nsight Compute's source-level sampling (issue #33).

For each variant (default: every lesson variant of `tilelab-cli list --json`, at its defaults):
  1. `tilelab-cli run V --stalls --no-hardware --no-reference --no-flush --json`: the GPU worker's
     PC samples, per source line of the kernel's file and per reason group;
  2. ncu with the SourceCounters section around `tilelab-cli run V --no-hardware --no-reference
     --no-flush` (no sampling of ours), profiling the fourth launch of the lesson's kernel, by its
     own name (a lesson of several kernels has others whose names start with it), and the launches
     after it up to about 0.3 ms of kernel time (at most 10; --ncu-launches N sets it), summed;
     after the validating launch and two warm-ups, with L2 left warm as TileLab's back-to-back
     sampled launches find it; clocks and caches left alone (--clock-control none --cache-control
     none), at the first sampling period of ours (--warp-sampling-interval = TileLab's period_log2 - 5;
     with its period check (the default) the worker samples at two periods, or three, and may leave
     one out: the verdict names them);
     in application replay by default (ncu runs the CLI once per pass, so nothing of ncu's saves
     and restores memory before the sampled launch: with kernel replay matmul.wmma's first global
     load drew 7.1-7.7% of ncu's samples, with application replay 2.2%, in TileLab 2.3%; H200,
     2026-12-04);
  3. `ncu --page source --csv --print-source cuda,sass` on that report: samples per source line
     ("Warp Stall Sampling (All Samples)") and per reason (the stall_* columns, grouped as
     TileLab groups them, tilelab/stalls.h).
A variant agrees when each of TileLab's top-5 lines has a share within 5 percentage points of
ncu's share for that line, and the top reason group is the same. Then, for the timing target, it
times each variant R times with sampling enabled in the worker (--stalls: enabled when the worker
starts, before the timed launches, which are never sampled) and R times without, alternating, and
prints the difference of the medians.

Prints one table (markdown) last; exit 1 if any variant disagrees.
Usage: check_stalls.py CLI [--variants a,b] [--ncu PATH] [--repeat R] [--skip-timing] [--ncu-launches N]
                       [--ncu-replay kernel|application] [--keep DIR] [--from DIR]
"""
import argparse, csv, io, json, os, statistics, subprocess, sys, tempfile
from stray import stop_stray_processes

# ncu's stall_* column suffixes -> TileLab's groups (tilelab/stalls.h).
NCU_GROUPS = {
    "selected": "issuing", "long_sb": "global_memory", "short_sb": "shared_memory", "barrier": "barrier",
    "math": "math_pipe", "tensor": "math_pipe", "mio": "memory_throttle", "lg": "memory_throttle",
    "tex": "memory_throttle", "not_selected": "not_selected", "branch_resolving": "branch", "no_inst": "branch",
    "imc": "branch", "wait": "wait",
}
TOP_LINES, TOL_PP = 5, 5.0


def run(cmd, timeout=600):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def ours(cli, variant):
    rc, out, err = run([cli, "run", variant, "--stalls", "--no-hardware", "--no-reference", "--no-flush", "--json"])
    if rc != 0:
        raise RuntimeError(f"tilelab-cli run {variant} exited {rc}: {err.strip()[-300:]}")
    return json.loads(out)


def base_name(name_expression):
    return name_expression.split("<")[0].split("(")[0].strip()


def file_matches(a, b):
    ends = lambda x, y: bool(y) and x.endswith(y) and (len(x) == len(y) or x[-len(y) - 1] == "/")
    return ends(a, b) or ends(b, a)


def ncu_report(ncu, cli, variant, kernel, period, workdir, launches, replay, keep):
    rep = os.path.join(workdir, variant.replace(".", "_"))
    # The kernel's own name only: a lesson of several kernels (lesson 14's three) has others
    # whose names start with it, and TileLab samples the lesson's kernel alone.
    cmd = [ncu, "--section", "SourceCounters", "--clock-control", "none", "--cache-control", "none",
           "--replay-mode", replay, "--warp-sampling-interval", str(max(0, period - 5)),
           "-k", f"regex:^{kernel}(<.*)?$", "--launch-skip", "3",
           "-c", str(launches), "-f", "-o", rep, cli, "run", variant, "--no-hardware", "--no-reference", "--no-flush",
           "--reps", str(launches + 10)]
    rc, out, err = run(cmd)
    if rc != 0 or not os.path.exists(rep + ".ncu-rep"):
        raise RuntimeError(f"ncu on {variant} exited {rc}: {(out + err).strip()[-300:]}")
    pages = {}
    for view in ("cuda,sass", "sass"):
        rc, out, err = run([ncu, "-i", rep + ".ncu-rep", "--page", "source", "--csv", "--print-source", view])
        if rc != 0:
            raise RuntimeError(f"ncu --page source ({view}) exited {rc}: {err.strip()[-200:]}")
        pages[view] = list(csv.reader(io.StringIO(out)))
        if keep:
            with open(os.path.join(keep, f"{variant}.ncu.{view.replace(',', '_')}.csv"), "w") as f:
                f.write(out)
    return pages


def ncu_lines(rows):
    """{(file, line): samples} from the cuda,sass page: 'File Path' rows start a file."""
    lines, cur_file, col = {}, "", None
    for r in rows:
        if not r:
            continue
        if r[0] == "File Path":
            cur_file = r[1]
        elif r[0] == "Line No":
            col = r.index("Warp Stall Sampling (All Samples)")
        elif col is not None and r[0].strip().isdigit() and len(r) > col:
            key = (cur_file, int(r[0]))
            lines[key] = lines.get(key, 0) + int(float(r[col] or 0))
    return lines


def sass_sections(rows):
    """Each profiled launch's SASS table: (header, its rows)."""
    out, header = [], None
    for r in rows:
        if r and r[0] == "Address":
            header = r
            out.append((header, []))
        elif header and len(r) == len(header) and r[0].startswith("0x"):
            out[-1][1].append(r)
    return out


def ncu_groups(rows):
    groups = {}
    for header, body in sass_sections(rows):
        cols = {i: h[len("stall_"):] for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h}
        for r in body:
            for i, name in cols.items():
                g = NCU_GROUPS.get(name, "other")
                groups[g] = groups.get(g, 0) + int(float(r[i] or 0))
    return groups


def ncu_pcs(rows):
    """{offset from the function's first instruction: samples} from the sass page, every launch."""
    pcs = {}
    for header, body in sass_sections(rows):
        col = header.index("Warp Stall Sampling (All Samples)")
        base = int(body[0][0], 16) if body else 0
        for r in body:
            off = int(r[0], 16) - base
            pcs[off] = pcs.get(off, 0) + int(float(r[col] or 0))
    return pcs


def sass_detail(j, theirs, n=8):
    """TileLab's n most sampled instructions: offset, line, TileLab %, ncu % (`theirs`: ncu_pcs) —
    tells a difference in sampling from one in line attribution."""
    s = j["stalls"]
    total = sum(theirs.values()) or 1
    lines = s["lines"]
    top = sorted(s["pcs"], key=lambda p: -sum(p["counts"].values()))[:n]
    return "; ".join(f"0x{p['offset']:x} (line {lines[p['line']]['line'] if p['line'] >= 0 else '?'}): "
                     f"{100.0 * sum(p['counts'].values()) / s['total']:.1f}/{100.0 * theirs.get(p['offset'], 0) / total:.1f}"
                     for p in top)


def periods(s):
    """The periods TileLab's samples are from: "2^11+2^12 (0.8)", "2^12+2^13, 2^11 left out (12.4)"."""
    first, last, out = s["period_log2"], s.get("last_period_log2", 0), s.get("left_out_period_log2", 0)
    shown = "+".join(f"2^{p}" for p in range(first, max(first, last) + 1) if p != out)
    return shown + (f", 2^{out} left out" if out else "") + (f" ({s.get('period_spread', 0):.1f})" if last else "")


def compare(j, pages):
    s = j["stalls"]
    if s["status"] not in ("ok",) or not s["lines"]:
        return {"ok": False, "why": f"TileLab: {s['status']} {s['reason']}"}
    kfile = j["compile"]["kernel_file"]
    ours_total = s["total"]
    theirs = ncu_lines(pages["cuda,sass"])
    # The kernel's samples are the sass page's: the source page lists an inlined instruction under
    # a line of each file its call chain passes through (line 191 and hopper.cuh:71), so its line
    # rows add up to more than the samples (38,034 against 25,116 for matmul.warp_specialized).
    theirs_pcs = ncu_pcs(pages["sass"])
    theirs_total = sum(theirs_pcs.values())
    ours_lines = [l for l in s["lines"] if file_matches(l["file"], kfile)][:TOP_LINES]
    worst, rows = 0.0, []
    for l in ours_lines:
        mine = 100.0 * sum(l["counts"].values()) / ours_total
        n = sum(v for (f, ln), v in theirs.items() if ln == l["line"] and file_matches(f, kfile))
        other = 100.0 * n / theirs_total if theirs_total else 0.0
        worst = max(worst, abs(mine - other))
        rows.append(f"{l['line']}: {mine:.1f}/{other:.1f}")
    g_ours = max(s["counts"], key=lambda k: s["counts"][k])
    g_ncu_all = ncu_groups(pages["sass"])
    g_ncu = max(g_ncu_all, key=lambda k: g_ncu_all[k]) if g_ncu_all else "-"
    top_ncu = sorted(((v, ln) for (f, ln), v in theirs.items() if file_matches(f, kfile)), reverse=True)[:TOP_LINES]
    return {"ok": worst <= TOL_PP and g_ours == g_ncu, "worst": worst, "lines": rows, "samples": (ours_total, theirs_total),
            "periods": periods(s),
            "sass": sass_detail(j, theirs_pcs),
            "ncu_top": "; ".join(f"{ln}: {100.0 * v / max(1, theirs_total):.1f}" for v, ln in top_ncu),
            "top": (g_ours, 100.0 * s["counts"][g_ours] / ours_total, g_ncu,
                    100.0 * g_ncu_all.get(g_ncu, 0) / max(1, sum(g_ncu_all.values())))}


def kept_pages(folder, variant):
    """A run's files written by --keep: TileLab's JSON and ncu's two source pages."""
    with open(os.path.join(folder, f"{variant}.tilelab.json")) as f:
        j = json.load(f)
    pages = {}
    for view in ("cuda,sass", "sass"):
        with open(os.path.join(folder, f"{variant}.ncu.{view.replace(',', '_')}.csv")) as f:
            pages[view] = list(csv.reader(f))
    return j, pages


def ncu_launches(a, j):
    """--ncu-launches, or launches for about 0.3 ms of kernel time: a 25 µs kernel's one launch gives
    ncu some 2,500 samples, too few to settle a top reason within a point or two (H200, 2026-12-04)."""
    if a.ncu_launches > 0:
        return a.ncu_launches
    ms = (j.get("timing") or {}).get("median_ms") or j.get("median_ms") or 0.0
    return max(1, min(10, int(-(-0.3 // ms)))) if ms > 0 else 1


def median_ms(cli, variant, stalls):
    cmd = [cli, "run", variant, "--no-hardware", "--no-reference", "--reps", "30", "--json"] + (["--stalls"] if stalls else [])
    rc, out, err = run(cmd)
    if rc != 0:
        raise RuntimeError(f"timing {variant} exited {rc}: {err.strip()[-200:]}")
    return json.loads(out)["timing"]["median_ms"]


def agreement(a, v, work):
    """One variant's comparison: measured now (TileLab, then ncu), or again from --from's files."""
    if a.source:
        return compare(*kept_pages(a.source, v))
    j = ours(a.cli, v)
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        with open(os.path.join(a.keep, f"{v}.tilelab.json"), "w") as f:
            json.dump(j, f)
    if j["stalls"]["status"] != "ok":
        return {"ok": False, "why": f"TileLab: {j['stalls']['status']} {j['stalls']['reason']}"}
    kernel = base_name(j["name_expression"] if "name_expression" in j else j["compile"]["name_expression"])
    return compare(j, ncu_report(a.ncu, a.cli, v, kernel, j["stalls"]["period_log2"], work, ncu_launches(a, j),
                                 a.ncu_replay, a.keep))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--variants", default="")
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--ncu-launches", type=int, default=0,
                    help="launches ncu samples (after the first 3), summed: more samples for short kernels "
                         "(default: enough for about 0.3 ms of kernel time, 1 to 10)")
    ap.add_argument("--ncu-replay", default="application", choices=["kernel", "application"],
                    help="ncu's replay mode: kernel (saves and restores memory between its passes) or application "
                         "(runs the CLI once per pass: nothing but the program touches memory)")
    ap.add_argument("--keep", default="", help="a folder for each variant's TileLab JSON and ncu's source pages (CSV)")
    ap.add_argument("--from", dest="source", default="",
                    help="compare again from a folder written by --keep (no GPU, no ncu; implies --skip-timing)")
    a = ap.parse_args()
    if a.source:
        a.skip_timing = True
    else:
        stop_stray_processes("check_stalls")
    if a.variants:
        variants = a.variants.split(",")
    elif a.source:
        variants = sorted(f[:-len(".tilelab.json")] for f in os.listdir(a.source) if f.endswith(".tilelab.json"))
    else:
        rc, out, _ = run([a.cli, "list", "--json"])
        variants = sorted({l["variant"] for l in json.loads(out)["lessons"]})
    table, details, failed = [], [], False
    with tempfile.TemporaryDirectory() as work:
        for v in variants:
            try:
                c = agreement(a, v, work)
            except Exception as e:  # one variant's failure is a row, not the end of the check
                c = {"ok": False, "why": str(e)}
            timing = ""
            if not a.skip_timing:
                try:
                    on, off = [], []
                    for _ in range(a.repeat):
                        off.append(median_ms(a.cli, v, False))
                        on.append(median_ms(a.cli, v, True))
                    d = 100.0 * (statistics.median(on) / statistics.median(off) - 1)
                    timing = f"{statistics.median(off):.4f} / {statistics.median(on):.4f} ms ({d:+.2f}%)"
                except Exception as e:
                    timing = f"error: {e}"
            failed |= not c["ok"]
            if "why" in c:
                table.append(f"| {v} | - | - | - | {timing} | FAIL: {c['why'][:120]} |")
                continue
            if not c["ok"]:
                details.append(f"| {v} | {c['ncu_top']} | {c['sass']} |")
            g = c["top"]
            table.append(f"| {v} | {c['samples'][0]:,} / {c['samples'][1]:,} | {'; '.join(c['lines'])} | "
                         f"{g[0]} {g[1]:.0f}% / {g[2]} {g[3]:.0f}% | {timing} | "
                         f"{'ok' if c['ok'] else 'FAIL'} (worst {c['worst']:.1f} pp; {c['periods']}) |")
            print(table[-1], file=sys.stderr, flush=True)
    print("| variant | samples TileLab / ncu | top-5 lines: TileLab % / ncu % | top reason TileLab / ncu | "
          "median without / with sampling enabled | verdict |")
    print("|---|---|---|---|---|---|")
    for row in table:
        print(row)
    if details:
        print("\nWhere they differ: ncu's top lines (line: %), and per SASS instruction TileLab's 8 most sampled "
              "(offset, line, TileLab % / ncu %):\n")
        print("| variant | ncu's top lines | instructions |")
        print("|---|---|---|")
        for row in details:
            print(row)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
