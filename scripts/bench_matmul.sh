#!/usr/bin/env bash
# The matmul benchmark (issue 2): naive 16×16, shared-memory tiled (TILE 8/16/32 × PAD 0/1) and
# cuBLAS SGEMM (FP32, pedantic) at 1024³, 2048³ and 4096³, all through tilelab-cli: median time,
# TFLOP/s and % of cuBLAS. Then, if ncu is installed, Nsight Compute's own time for tiled 32 at
# 4096 against the tool's median (they should agree within 3%). Prints a markdown table last.
#
# Usage: scripts/bench_matmul.sh [BUILD_DIR]      (default: build-gpu; needs a GPU)
# Env:   REPS (default 10), SIZES (default "1024 2048 4096")
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${1:-build-gpu}
cli="$build/tilelab-cli"
reps=${REPS:-10}
read -r -a sizes <<< "${SIZES:-1024 2048 4096}"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

if [ ! -x "$cli" ]; then
  echo "bench_matmul: $cli not found (build it first: cmake --build $build --target tilelab-cli)" >&2
  exit 1
fi

# label | variant | parameters
configs=(
  "naive 16×16|matmul.naive|BX=16 BY=16 SWAP=0"
  "tiled 8|matmul.smem_tiled|TILE=8 PAD=0"
  "tiled 8 pad|matmul.smem_tiled|TILE=8 PAD=1"
  "tiled 16|matmul.smem_tiled|TILE=16 PAD=0"
  "tiled 16 pad|matmul.smem_tiled|TILE=16 PAD=1"
  "tiled 32|matmul.smem_tiled|TILE=32 PAD=0"
  "tiled 32 pad|matmul.smem_tiled|TILE=32 PAD=1"
)

# A top-level number from the CLI's JSON (printed with 2-space indent): json_field KEY < json
json_field() { grep -m1 -E "^  \"$1\": " | sed -E 's/^[^:]*: *//; s/,$//; s/^"//; s/"$//'; }

set_flags() { local f=(); for kv in $1; do f+=(--set "$kv"); done; echo "${f[@]}"; }

rows=()
failures=0
targets=$("$cli" targets --json 2>&1)
if ! grep -q '"mode": "gpu"' <<< "$targets"; then
  echo "bench_matmul: no GPU, nothing to measure: $(json_field reason <<< "$(grep -A3 '"device"' <<< "$targets" | sed 's/^  //')")" >&2
  exit 1
fi
device=$(grep -m1 -E '"name":' <<< "$targets" | sed -E 's/.*: *"(.*)",?/\1/')
echo "bench_matmul: $cli on ${device:-unknown device}, $reps repetitions, L2 flushed"
for n in "${sizes[@]}"; do
  cublas_ms=""
  for c in "${configs[@]}"; do
    IFS='|' read -r label variant params <<< "$c"
    # shellcheck disable=SC2046
    json=$("$cli" run "$variant" $(set_flags "$params") --size "$n" --reps "$reps" --no-count --json 2>&1)
    rc=$?
    ms=$(json_field median_ms <<< "$json")
    if [ $rc -ne 0 ] || [ -z "$ms" ] || [ "$ms" = null ]; then
      err=$(json_field error <<< "$json"); [ -n "$err" ] || err=$(tail -1 <<< "$json")
      echo "  $label at $n: FAILED (exit $rc): $err"
      rows+=("| $label | $n | failed | | | ${err:0:80} |")
      failures=$((failures + 1))
      continue
    fi
    tflops=$(awk -v g="$(json_field gflops <<< "$json")" 'BEGIN{printf "%.2f", g/1000}')
    pct=$(awk -v p="$(json_field pct_of_reference <<< "$json")" 'BEGIN{printf "%.1f", p}')
    ref=$(json_field reference_ms <<< "$json")
    [ -n "$cublas_ms" ] || { [ "$ref" != null ] && cublas_ms=$ref; }
    echo "  $label at $n: $ms ms"
    rows+=("| $label | $n | $(printf '%.3f' "$ms") | $tflops | $pct% | |")
  done
  if [ -n "$cublas_ms" ]; then
    tflops=$(awk -v ms="$cublas_ms" -v n="$n" 'BEGIN{printf "%.2f", 2*n*n*n/(ms*1e9)}')
    rows+=("| cuBLAS SGEMM (FP32, pedantic) | $n | $(printf '%.3f' "$cublas_ms") | $tflops | 100.0% | |")
  fi
done

# Nsight Compute: its kernel duration for tiled 32 at 4096 against the tool's median. Its own
# L2 flush (--cache-control all) matches ours; --clock-control none leaves clocks as in our runs.
ncu_line="ncu: not installed, comparison skipped"
ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ -n "$ncu_bin" ]; then
  tool_json=$("$cli" run matmul.smem_tiled --set TILE=32 --set PAD=0 --size 4096 --reps "$reps" --no-count --no-reference --json 2>&1)
  tool_ms=$(json_field median_ms <<< "$tool_json")
  ncu_csv=$("$ncu_bin" --metrics gpu__time_duration.sum --cache-control all --clock-control none --print-units base \
              --csv -k regex:smem_tiled_matmul "$cli" run matmul.smem_tiled --set TILE=32 --set PAD=0 --size 4096 \
              --reps "$reps" --no-count --no-reference 2>&1)
  # CSV rows of the metric: the last field is the value (ns in base units), quoted, maybe with commas.
  ncu_ms=$(awk -F'","' '/gpu__time_duration.sum/ { v=$NF; gsub(/[",]/, "", v); print v/1e6 }' <<< "$ncu_csv" |
           sort -g | awk '{a[NR]=$1} END{ if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2) }')
  if [ -n "$ncu_ms" ] && [ -n "$tool_ms" ] && [ "$tool_ms" != null ]; then
    ncu_line=$(awk -v t="$tool_ms" -v n="$ncu_ms" 'BEGIN{d=(t-n)/n*100; printf "ncu: tiled 32 at 4096: tool median %.3f ms, ncu median %.3f ms, difference %+.1f%% (%s)", t, n, d, (d<3 && d>-3) ? "within 3%" : "OVER 3%"}')
  else
    ncu_line="ncu: comparison failed; ncu said: $(grep -m3 -E 'ERR|Error|error' <<< "$ncu_csv" | tr '\n' ' ')"
    failures=$((failures + 1))
  fi
fi

echo
echo "## Matmul on ${device:-the GPU} (median of $reps, L2 flushed)"
echo
echo "| kernel | N | ms | TFLOP/s | % of cuBLAS | note |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
printf '%s\n' "${rows[@]}"
echo
echo "$ncu_line"
[ $failures -eq 0 ]
