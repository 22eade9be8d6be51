#!/usr/bin/env bash
# Issue 30 probe: does the per-thread stack limit, by which the driver lays out each thread's local
# memory, move a spilling kernel's L2 misses and DRAM reads in TileLab's counter pass, and does a
# launch under ncu see other limits? matmul.register_2d with a 16x8 thread tile and DBUF=1 (584 B of
# spill loads a thread, scripts/probe_dram_reads.py): the pass at five stack limits
# (TILELAB_HW_STACK_LIMIT), then ncu on the pass's own launch (TILELAB_HW_NCU_LAUNCH) at the default
# limit and at 64 KiB. TILELAB_HW_TRACE prints the limits ("hw-limit:") and the values ("hw-value:").
# Usage: scripts/probe_stack_limit.sh CLI OUTDIR   (SIZE=2048 by default)
set -u
CLI=${1:?usage: probe_stack_limit.sh CLI OUTDIR}
OUT=${2:?usage: probe_stack_limit.sh CLI OUTDIR}
mkdir -p "$OUT"
SIZE=${SIZE:-2048}
SET="--set BM=128 --set BN=32 --set BK=8 --set TM=16 --set TN=8 --set FLOAT4=0 --set TRANSPOSE_A=0 --set PAD=4 --set DBUF=1"
M=dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum
export TILELAB_HW_TRACE=1 TILELAB_HW_METRICS=$M
for st in default 1024 4096 16384 65536; do
  if [ $st = default ]; then unset TILELAB_HW_STACK_LIMIT; else export TILELAB_HW_STACK_LIMIT=$st; fi
  $CLI run matmul.register_2d --size $SIZE $SET --no-count --no-reference --reps 5 --warmup 1 --json > $OUT/run_$st.json 2> $OUT/run_$st.err
  med=$(python3 -c "import json;print(json.load(open('$OUT/run_$st.json')).get('median_ms'))" 2>/dev/null)
  echo "== TileLab pass, stack $st: median ${med} ms"; grep -h "hw-limit\|hw-value" $OUT/run_$st.err
done
K=$(python3 -c "import json;print(json.load(open('$OUT/run_default.json'))['kernel'].split('<')[0])")
for st in default 65536; do
  if [ $st = default ]; then unset TILELAB_HW_STACK_LIMIT; else export TILELAB_HW_STACK_LIMIT=$st; fi
  TILELAB_HW_NCU_LAUNCH=1 ncu --clock-control none --cache-control none --nvtx --nvtx-include tilelab-hardware-pass/ \
    --target-processes all --kernel-name "regex:$K" --launch-count 1 --metrics $M,gpu__time_duration.sum --csv --print-units base \
    $CLI run matmul.register_2d --size $SIZE $SET --no-count --no-reference --reps 1 --warmup 0 > $OUT/ncu_$st.txt 2> $OUT/ncu_$st.err
  echo "== ncu on the pass's launch, stack $st"; grep -h "hw-limit" $OUT/ncu_$st.err $OUT/ncu_$st.txt | head -4
  grep '^"' $OUT/ncu_$st.txt | awk -F'","' '{print $(NF-2), $NF}' | tail -6
done
