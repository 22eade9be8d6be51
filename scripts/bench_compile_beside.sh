#!/usr/bin/env bash
# The instrumented build compiled beside the timed one (Engine::compile_counting_now, issue 38):
# for configurations whose builds are slow to compile and one that is quick, a counted run and an
# uncounted one, each from an empty compile cache, wall time and the engine's own stage times
# (JSON `stages`: compile_ms of the timed build, count_compile_ms: how long the measurement then
# waited for the instrumented build). Before the change a counted run paid the two compiles one
# after the other. Prints a markdown table last.
# Usage: scripts/bench_compile_beside.sh CARRY_OR_BUILD [OUT]   (needs a GPU and python3)
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: bench_compile_beside.sh CARRY_OR_BUILD [OUT]}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
configs=(
  "15|PREC=bf16 BR=16 BC=128 TPR=2 CAUSAL=1 RPT=1"
  "05|BM=64 BN=64 BK=64 TM=8 TN=16 FLOAT4=0 TRANSPOSE_A=1 PAD=6 DBUF=0"
  "19|"
)
echo "| lesson | configuration | counted | wall s | timed build s | waited for the instrumented build s | compiled beside |" >"$out/table.md"
echo "| --- | --- | --- | ---: | ---: | ---: | --- |" >>"$out/table.md"
i=0
for entry in "${configs[@]}"; do
  lesson=${entry%%|*}; params=${entry#*|}
  sets=(); for s in $params; do sets+=(--set "$s"); done
  for count in yes no; do
    i=$((i + 1))
    flags=(--reps 3 --no-hardware --json); [ $count = no ] && flags+=(--no-count)
    start=$(date +%s.%N)
    XDG_CACHE_HOME="$out/cache$i" "$bin/tilelab-cli" run "$lesson" "${sets[@]}" "${flags[@]}" >"$out/run$i.json" 2>"$out/run$i.err"
    end=$(date +%s.%N)
    python3 - "$out/run$i.json" "$lesson" "${params:-defaults}" "$count" "$start" "$end" >>"$out/table.md" <<'PY'
import json, sys
path, lesson, params, count, start, end = sys.argv[1:]
try:
    j = json.load(open(path))
    s = j.get("stages") or {}
    ok = j.get("status") == "ok" or j.get("ok", False)
    waited = f"{s.get('count_compile_ms', 0) / 1000:.2f}" if count == "yes" else "-"
    beside = ("yes" if s.get("count_prefetch_hit") else "no") if count == "yes" else "-"
    print(f"| {lesson} | {params} | {count} | {float(end) - float(start):.1f} | {s.get('compile_ms', 0) / 1000:.2f} | {waited} | {beside} |")
except Exception as e:
    print(f"| {lesson} | {params} | {count} | failed: {e} | | | |")
PY
  done
done
cat "$out/table.md"
