#!/usr/bin/env bash
# The tensor-core lessons (12 WMMA, 13 mma.sync, issue 32; 21 TMA + wgmma, issue 36) on the GPU
# machine, in one call:
#   1. compute-sanitizer memcheck and racecheck at odd sizes (M, N, K not multiples of the tiles;
#      N odd: element-wise copies and edge stores; N % 8 == 0 with M, K odd: 16-byte copies with
#      zero-filled tails) for every precision and several stage counts;
#   2. timings at 4096³ (and 8192³): the lesson's ladder, each validated against cuBLAS at the same
#      precision measured in the same run (L2 flushed); counted == model; shared-load wavefronts
#      and bank conflicts, the model's beside the hardware's;
#   3. Nsight Compute on the lesson's BF16 defaults at 4096³: tensor pipe, issue slots, stalls,
#      shared-memory wavefronts and conflicts, DRAM throughput (what limits it).
# Binaries from scripts/carry_build.sh (CARRY: tilelab-cli, tilelab-gpu-worker).
# Usage: scripts/gpu_tensor_check.sh LESSON CARRY OUT   (LESSON 12, 13 or 21; logs and JSON into OUT;
#        the table printed last). PARTS="sanitize bench ncu" (the default) picks what runs;
#        SANITIZE_ONLY=TEXT (e.g. PINGPONG) sanitizes only the configurations naming TEXT,
#        BENCH_ONLY=TEXT likewise for the timings (scripts/bench_tensor.py; TEXT|TEXT for several).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
lesson=${1:?usage: gpu_tensor_check.sh LESSON CARRY OUT}
carry=${2:?usage: gpu_tensor_check.sh LESSON CARRY OUT}
out=${3:?usage: gpu_tensor_check.sh LESSON CARRY OUT}
mkdir -p "$out"
variant=matmul.wmma
[ "$lesson" = 13 ] && variant=matmul.mma
[ "$lesson" = 21 ] && variant=matmul.tma_wgmma
[ "$lesson" = 22 ] && variant=matmul.warp_specialized
hopper=0; [ "$lesson" -ge 21 ] && hopper=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cli="$carry/tilelab-cli"
parts=${PARTS:-sanitize bench ncu}
failed=0
: > "$out/sanitizer.txt"

sanitize() {   # tool size sets...
  local tool=$1 size=$2; shift 2
  local sets=() name="$tool $size"
  for s in "$@"; do sets+=(--set "$s"); name+=" $s"; done
  [[ -z "${SANITIZE_ONLY:-}" || "$name" == *"$SANITIZE_ONLY"* ]] || return 0
  /usr/local/cuda/bin/compute-sanitizer --tool "$tool" --target-processes all --error-exitcode 9 \
    "$cli" run "$variant" --size "$size" "${sets[@]}" --reps 1 --warmup 0 --no-reference --no-hardware \
    >"$out/sanitizer.one" 2>&1
  local rc=$?
  cat "$out/sanitizer.one" >> "$out/sanitizer.log"
  # At the larger sizes the validation's reference is cuBLAS, and racecheck reports hazards inside
  # cuBLAS's own sm_90 kernels (nvjet_*), not ours to fix. Those alone do not fail the check; any
  # other error does. (Filtering with --kernel-name instead made racecheck fail with an internal
  # error on every 1001³ run on the H200, 2026-12-01.)
  local errors theirs
  errors=$(grep -c '^========= Error' "$out/sanitizer.one")
  theirs=$(grep -c '^========= Error: Race reported between .* access at nvjet_' "$out/sanitizer.one")
  if [ $rc -eq 9 ] && [ "$errors" -gt 0 ] && [ "$errors" = "$theirs" ] && grep -q 'Validation  \[PASS\]' "$out/sanitizer.one"; then
    echo "$name: rc=0 (clean; racecheck also reported $theirs hazards inside cuBLAS's reference kernels)" >> "$out/sanitizer.txt"
    return
  fi
  echo "$name: rc=$rc" >> "$out/sanitizer.txt"
  [ $rc -eq 0 ] || failed=1
}
small="BM=64 BN=64 WM=32 WN=32 BK=16"
[ "$lesson" = 13 ] && small="BM=64 BN=64 WM=32 WN=32 BK=32 LAYOUT=0 GROUP=2"
# Lessons 21 and 22: K and N multiples of 8 (TMA's rows), M odd; partial last tiles in M, N and K.
for prec in bf16 fp16; do
  [ "$lesson" = 21 ] && [[ " $parts " == *" sanitize "* ]] || break
  for tool in memcheck racecheck synccheck; do
    sanitize $tool 301x296x312 PREC=$prec
    sanitize $tool 129x72x40 PREC=$prec STAGES=2 INFLIGHT=0
  done
  sanitize memcheck 1001x1000x1000 PREC=$prec BM=64 BN=256 WGN=256 STAGES=4
  sanitize racecheck 257x264x136 PREC=$prec SWIZZLE=32 BK=32 WGN=64
  sanitize memcheck 257x264x136 PREC=$prec SWIZZLE=64 BK=128 STAGES=3
  sanitize synccheck 65x64x16 PREC=$prec STAGES=1 INFLIGHT=0 BM=64 BN=64 WGN=64 BK=16 SWIZZLE=32
done
for prec in bf16 fp16; do
  [ "$lesson" = 22 ] && [[ " $parts " == *" sanitize "* ]] || break
  for tool in memcheck racecheck synccheck; do
    sanitize $tool 301x296x312 PREC=$prec
    sanitize $tool 1001x1000x1000 PREC=$prec STAGES=2 GROUP=4
  done
  sanitize memcheck 129x72x40 PREC=$prec PERSISTENT=0 CONSUMERS=1 BN=128
  sanitize racecheck 257x264x136 PREC=$prec SETMAXNREG=0 GROUP=1
  sanitize synccheck 65x64x16 PREC=$prec CONSUMERS=1 STAGES=6 BN=128
  # Clusters: 3 tile rows (a cluster past M), partial last tiles, persistent and not.
  for tool in memcheck racecheck synccheck; do
    sanitize $tool 301x296x312 PREC=$prec CLUSTER=2
  done
  sanitize memcheck 1001x1000x1000 PREC=$prec CLUSTER=4 STAGES=3
  sanitize racecheck 129x136x72 PREC=$prec CLUSTER=4 PERSISTENT=0
  sanitize synccheck 257x264x136 PREC=$prec CLUSTER=2 BN=128 CONSUMERS=1 STAGES=6
  # Consumers in turns: blocks with an odd number of tiles (the last one consumer's alone), in
  # clusters, one block a tile (the second consumer idle).
  for tool in memcheck racecheck synccheck; do
    sanitize $tool 301x296x312 PREC=$prec PINGPONG=1 BN=128 STAGES=6
  done
  sanitize memcheck 1001x1000x1000 PREC=$prec PINGPONG=1 CLUSTER=2 STAGES=5
  sanitize racecheck 129x136x72 PREC=$prec PINGPONG=1 PERSISTENT=0 BN=128
  sanitize synccheck 257x264x136 PREC=$prec PINGPONG=1 CLUSTER=2 BN=128 STAGES=7
  # C stored by TMA through shared memory: partial boxes in M and N, clusters, turns, one block a tile.
  for tool in memcheck racecheck synccheck; do
    sanitize $tool 301x296x312 PREC=$prec EPILOGUE=1
  done
  sanitize memcheck 1001x1000x1000 PREC=$prec EPILOGUE=1 CLUSTER=2
  sanitize racecheck 257x264x136 PREC=$prec EPILOGUE=1 PINGPONG=1 BN=128
  sanitize synccheck 129x136x72 PREC=$prec EPILOGUE=1 PERSISTENT=0
  # Tiles along the Hilbert curve: odd tile grids (a diagonal step), clusters, turns.
  sanitize memcheck 1001x1000x1000 PREC=$prec ORDER=1 CLUSTER=2
  sanitize racecheck 301x296x312 PREC=$prec ORDER=1 PINGPONG=1 BN=128
  sanitize synccheck 257x264x136 PREC=$prec ORDER=1 EPILOGUE=1
  # Stream-K on the H200's 132 blocks: sizes with more tiles than blocks, so the last round (or
  # two) cut tiles (partial last tiles in M, N and K among them), clusters, C by TMA.
  for rounds in 1 2; do
    for tool in memcheck racecheck synccheck; do
      sanitize $tool 2176x2056x1000 PREC=$prec STREAMK=$rounds
    done
    sanitize memcheck 2001x2056x1000 PREC=$prec STREAMK=$rounds CLUSTER=2 EPILOGUE=1
    sanitize racecheck 2501x1032x520 PREC=$prec STREAMK=$rounds CONSUMERS=1 BN=128 ORDER=1
    sanitize synccheck 2001x2056x1000 PREC=$prec STREAMK=$rounds EPILOGUE=1
  done
  # Fewer tiles than blocks: every tile shared (STREAMK=1 and 2 alike), in up to five parts (middles pass sums on).
  sanitize memcheck 301x296x312 PREC=$prec STREAMK=1
  sanitize racecheck 1001x1000x2000 PREC=$prec STREAMK=1 CLUSTER=2
  sanitize synccheck 1001x1000x2000 PREC=$prec STREAMK=1 EPILOGUE=1
  sanitize memcheck 578x144x296 PREC=$prec STREAMK=1 CLUSTER=2 CONSUMERS=1 EPILOGUE=1 ORDER=1   # 25 slice-steps on 66 clusters
done
for prec in tf32 bf16 fp16; do
  [ "$hopper" = 0 ] && [[ " $parts " == *" sanitize "* ]] || break
  sanitize memcheck 301x299x303 PREC=$prec STAGES=1
  sanitize racecheck 301x299x303 PREC=$prec STAGES=3
  sanitize memcheck 257x264x131 PREC=$prec STAGES=3
  # shellcheck disable=SC2086
  sanitize racecheck 129x136x67 PREC=$prec $small STAGES=2
  if [ "$lesson" = 13 ]; then
    sanitize memcheck 1000x1000x1000 PREC=$prec LAYOUT=1 STAGES=4 GROUP=4
    sanitize racecheck 301x296x304 PREC=$prec FRAGS=1 STAGES=2
    sanitize memcheck 301x296x304 PREC=$prec FRAGS=1 STAGES=3 LAYOUT=0
    sanitize racecheck 515x1032x200 PREC=$prec BN=256 STAGES=3 GROUP=16
    # Rings deeper than 4 (STAGES 5 and 6): partial last tiles in M, N and K, fewer slices than stages.
    sanitize memcheck 301x296x312 PREC=$prec BM=256 BK=16 STAGES=6
    sanitize racecheck 301x296x312 PREC=$prec BM=256 BK=16 STAGES=6
    sanitize racecheck 257x264x40 PREC=$prec BK=16 STAGES=5 FRAGS=1
  fi
done

[[ " $parts " != *" bench "* ]] ||
  python3 scripts/bench_tensor.py "$lesson" "$variant" "$cli" "$out" > "$out/bench.txt" 2> "$out/bench.log" || failed=1

# What limits the lesson's BF16 defaults (and lesson 13's fastest configuration): one launch each
# under Nsight Compute.
metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_read.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_ldsm.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
profile() {   # name sets...
  local name=$1; shift
  ncu --target-processes all -k "regex:(wmma|mma|specialized)_matmul" -c 1 --metrics "$metrics" \
    "$cli" run "$variant" --size 4096 "$@" --reps 1 --warmup 0 --no-reference --no-hardware > "$out/ncu_$name.txt" 2>&1 \
    || echo "ncu failed: see ncu_$name.txt"
}
if [[ " $parts " == *" ncu "* ]]; then
  profile defaults --set PREC=bf16
  [ "$lesson" = 13 ] && profile best --set PREC=bf16 --set BM=256 --set BK=64
  [ "$lesson" = 22 ] && profile cluster2 --set PREC=bf16 --set CLUSTER=2
  [ "$lesson" = 22 ] && profile pingpong --set PREC=bf16 --set PINGPONG=1 --set BN=128 --set STAGES=6
  [ "$lesson" = 22 ] && profile epilogue --set PREC=bf16 --set EPILOGUE=1
  [ "$lesson" = 22 ] && profile epilogue_cluster2 --set PREC=bf16 --set EPILOGUE=1 --set CLUSTER=2
  [ "$lesson" = 22 ] && profile hilbert --set PREC=bf16 --set EPILOGUE=1 --set CLUSTER=2 --set ORDER=1
fi

echo "== sanitizer (rc 0 = clean)"; cat "$out/sanitizer.txt"
for f in "$out"/ncu_*.txt; do
  [ -e "$f" ] || continue
  echo "== ncu, BF16 at 4096³: $(basename "$f" .txt)"; grep -E '^\s+(sm__|smsp__|dram__|l1tex__|lts__|launch__)' "$f" | head -22
done
echo "== timings"; cat "$out/bench.txt"
exit $failed
