#!/bin/bash
# Issue 30: does the shared-memory configuration of the launch the counter pass counts explain its
# L2 bytes? (docs/benchmarks.md, H100 2026-12-07 08:37-08:42: matmul.register_2d 369³ counted 17.2 MB
# in the pass, 19.9-20.4 under ncu on the pass's own, the first and the timed launches, all in a
# 132 KB configuration; with the kernel's carveout fixed at 0 the pass counted 20.7.)
# For each setting, check_counters.py on the two configurations that differ, its L2-bytes row:
#   TILELAB_CARVEOUT=P            the lesson kernel prefers P % shared (every launch, ncu's too);
#   TILELAB_HW_EMPTY_CARVEOUT=P   the L2 emptying's kernels, just before the counted launch, do.
# If the emptying's setting moves the pass's count and not ncu's, the state those kernels leave
# the SM in is the cause. Usage: scripts/probe_carveout.sh CLI [OUTDIR]   (GPU machine, about 4 min)
# Answered for register_2d on an H100 (2026-12-07 13:17, docs/benchmarks.md): the emptying's carveout does not
# move the pass's count, the kernel's at 100 % neither; emptying L2 before the profiler's start does.
set -u
cli=$1
out=${2:-$(mktemp -d)}
mkdir -p "$out"
r2d="matmul.register_2d --size 369 --set BM=16 --set BN=32 --set BK=64 --set TM=4 --set TN=2 --set FLOAT4=0 --set TRANSPOSE_A=0 --set PAD=3 --set DBUF=0"
osm="attention.online_softmax --size 6148x64x9 --set PREC=2 --set BR=32 --set BC=32 --set TPR=8 --set CAUSAL=0 --set RPT=8 --set SPLIT=1"
here=$(dirname "$0")
check() {   # NAME CONFIG [VAR=VALUE]
    local name=$1 config=$2
    shift 2
    local log="$out/$name${1:+_${1//=/_}}.txt"   # one log a setting: r2d.txt, r2d_TILELAB_CARVEOUT_0.txt, ...
    env "$@" timeout 150 python3 "$here/check_counters.py" "$cli" --ncu-repeat 2 \
        --second-look 2 --config "$config" > "$log" 2>&1
    local row
    row=$(grep "lts__t_bytes.sum" "$log" | grep -v '^| `' | tail -1 | awk -F'|' '{print $5 "|" $6 "|" $7 "|" $9}')
    echo "| $name | ${*:-default} |$row |"
}
echo "| configuration | setting | TileLab | ncu | diff | verdict |"
echo "| --- | --- | ---: | --- | ---: | --- |"
check r2d "$r2d"
for p in 0 100; do check "r2d" "$r2d" TILELAB_HW_EMPTY_CARVEOUT=$p; done
for p in 0 100; do check "r2d" "$r2d" TILELAB_CARVEOUT=$p; done
check osm "$osm"
for p in 0 100; do check "osm" "$osm" TILELAB_HW_EMPTY_CARVEOUT=$p; done
echo "logs: $out"
