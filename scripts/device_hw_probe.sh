#!/usr/bin/env bash
# Second device call for issue #14: where the counter pass's time goes (fresh worker and a warm
# one), and how each way of emptying L2 before a pass compares with ncu's DRAM writes. Logs to $OUT.
set -uo pipefail
carry=$(cd "${1:?carry dir}" && pwd)
out=${OUT:-/tmp/hw}; mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 PATH=/usr/local/cuda/bin:$PATH XDG_CACHE_HOME=/tmp/hw-cache
cli=$carry/tilelab-cli
echo "== fresh worker (CLI run), tiled TILE=32 at 2048"
TILELAB_HW_TRACE=1 "$cli" run 02 --set TILE=32 --size 2048 --json 2>&1 >/dev/null | grep hw-trace
echo "== one worker, 4 points (sweep --hardware)"
TILELAB_HW_TRACE=1 "$cli" sweep 02 --param PAD --values 0,1 --param2 TILE --values2 32 --size 2048 --hardware --json 2>&1 >"$out/sweep.json" | grep hw-trace
TILELAB_HW_TRACE=1 "$cli" sweep 05 --param DBUF --size 2048 --hardware --json 2>&1 >"$out/sweep4.json" | grep hw-trace
python3 - "$out/sweep.json" "$out/sweep4.json" <<'PY'
import json,sys
for f in sys.argv[1:]:
    j=json.load(open(f)); pts=j["points"] if isinstance(j,dict) and "points" in j else j
    for p in pts:
        r=p.get("result",p); h=r.get("hardware",{})
        print(r.get("variant"), r.get("params"), "median_ms", r.get("median_ms"), "passes", h.get("passes"), "pass_ms", h.get("pass_ms"),
              "dram_rd", h.get("dram__bytes_read.sum"), "L2", h.get("lts__t_bytes.sum"), "L1ld", h.get("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"),
              "st_conf", h.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), "ld_conf", h.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"))
PY
# The places and ways of emptying L2 the worker knows (runner_gpu.cpp, read_counters): the default
# (after the profiler's start for the DRAM and L1 counts, before it for L2's and the ratios), all
# after the start, all before it, and the read alone without the discard.
for mode in default inpass before read; do
  echo "== flush $mode"
  TILELAB_HW_FLUSH=$mode timeout 120 python3 "$carry/check_counters.py" "$cli" --per-variant 1 --seed 7 \
    --variants stencil.basic,matmul.register_2d,stencil.smem_tiled 2>>"$out/check_err.log" | grep -E 'dram__bytes|failure'
done
if [ -x "$carry/tests/tilelab_tests" ]; then
  echo "== gtest"; TILELAB_CLI=$cli timeout 200 "$carry/tests/tilelab_tests" --gtest_brief=1 --gtest_filter='*Hardware*' 2>&1 | tail -25
fi
