#!/usr/bin/env bash
# One device call for the hardware-counter pass (issue #14): CUPTI libraries, what the binaries
# link, one full run of tiled TILE=32 at 2048³ with and without counters (the cost of the pass),
# the simulated permission refusal, counters under ncu (another profiler attached), and the
# comparison with ncu (scripts/check_counters.py). Logs to $OUT.
# Usage: scripts/device_hw_smoke.sh CARRY_DIR [per-variant] [variants]
set -uo pipefail
carry=$(cd "${1:?carry dir}" && pwd); per=${2:-1}; variants=${3:-}
out=${OUT:-/tmp/hw}; mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH XDG_CACHE_HOME=/tmp/hw-cache
cli=$carry/tilelab-cli
ms() { date +%s%N | cut -c1-13; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
  ls /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 2>/dev/null | grep -E 'cupti|nvperf' | tr '\n' ' '; echo
  command -v python3 ncu; ncu --version | tail -1
  for b in tilelab-cli tilelab-gpu-worker tests/tilelab_tests; do [ -x "$carry/$b" ] && { echo "== ldd $b"; ldd "$carry/$b" | grep -E 'cupti|cuda|not found'; }; done
} > "$out/env.log" 2>&1
cat "$out/env.log"
# The cost of the pass: the same full run with and without it (the compile cache is warm after the first).
"$cli" run 02 --set TILE=32 --size 2048 --no-hardware > /dev/null 2>&1
for mode in --no-hardware "" --no-hardware ""; do
  t0=$(ms); "$cli" run 02 --set TILE=32 --size 2048 $mode --json > "$out/tiled2048$mode.json" 2>>"$out/errors.log"; t1=$(ms)
  echo "wall ms ${mode:-with-hardware}: $((t1 - t0))" | tee -a "$out/cost.log"
done
python3 - "$out/tiled2048.json" <<'PY' | tee -a "$out/cost.log"
import json,sys; j=json.load(open(sys.argv[1])); h=j["hardware"]
print("median_ms", j["median_ms"], "passes", h["passes"], "pass_ms", round(h["pass_ms"],1), "status", h["status"], h["reason"])
for k,v in h.items():
    if "__" in k or "ways" in k: print(f"  {k} = {v}")
print("  gbps_dram", j["gbps_dram"], "gbps_model", j["gbps_model"])
PY
"$cli" run 02 --set TILE=32 --size 2048 2>&1 | sed -n '/^Measured/,$p' > "$out/table.log"; cat "$out/table.log"
echo "== simulated ERR_NVGPUCTRPERM"; TILELAB_SIMULATE_CUPTI_ERROR=35 "$cli" run 02 --size 512 2>&1 | sed -n '/^Hardware/,$p'
echo "== under ncu (another profiler)"; ncu --target-processes all --metrics dram__bytes_read.sum --launch-count 1 "$cli" run 02 --size 512 --no-count 2>&1 | grep -E 'not read|Hardware|passes|==ERROR' | head -5
echo "== check_counters"; timeout 400 python3 "$(dirname "$0")/check_counters.py" "$cli" --per-variant "$per" --variants "$variants" 2>"$out/check_err.log" | tee "$out/check.md" | tail -40
tail -5 "$out/check_err.log"
if [ -x "$carry/tests/tilelab_tests" ]; then
  echo "== gtest"; TILELAB_CLI=$cli timeout 300 "$carry/tests/tilelab_tests" --gtest_brief=1 --gtest_filter="${GTEST_FILTER:-*Hardware*}" 2>&1 | tail -25
fi
