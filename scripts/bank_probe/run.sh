#!/usr/bin/env bash
# Builds and runs the bank probe (bank_probe.cu) under Nsight Compute on the GPU machine and
# writes the measured table: one line per pattern, "op width o0 .. o31 wavefronts conflicts # name",
# the baseline launch (no lane active) subtracted. Then replay it on any machine with
#   TILELAB_BANK_PROBE=FILE build/tests/tilelab_tests --gtest_filter='BankProbe.*'
# Usage: scripts/bank_probe/run.sh OUT_FILE     (needs nvcc and ncu on PATH, as root or with
# access to the GPU's performance counters)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUT_FILE}
tmp=$(mktemp -d)
nvcc -O2 -arch=native -o "$tmp/bank_probe" "$here/bank_probe.cu"
"$tmp/bank_probe" > "$tmp/launches.txt"
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu --csv --metrics "$metrics" "$tmp/bank_probe" > "$tmp/ncu.csv" 2> "$tmp/ncu.err"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
python3 - "$tmp/launches.txt" "$tmp/ncu.csv" "$gpu" > "$out" <<'PY'
import csv, datetime, sys
launches = [l.rstrip("\n") for l in open(sys.argv[1])]
rows = list(csv.reader(l for l in open(sys.argv[2]) if l.startswith('"')))
head, rows = rows[0], rows[1:]
iid, name, value = head.index("ID"), head.index("Metric Name"), head.index("Metric Value")
by_launch = {}
for r in rows:
    by_launch.setdefault(int(r[iid]), {})[r[name]] = int(float(r[value].replace(",", "")))
print("# bank probe: %s, %s UTC" % (sys.argv[3], datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")))
print("# op width offsets[32] wavefronts conflicts # pattern   (baseline launch subtracted)")
base = {}
for i, line in enumerate(launches):
    fields, pattern = line.split(" # ", 1)
    op = fields.split()[0]
    m = by_launch[i]
    wav = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % op]
    cf = m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum" % op]
    if pattern == "none":
        base[op] = (wav, cf)
        continue
    print("%s %d %d # %s" % (fields, wav - base[op][0], cf - base[op][1], pattern))
PY
echo "bank probe: $(grep -vc '^#' "$out") patterns -> $out"
