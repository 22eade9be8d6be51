#!/usr/bin/env bash
# The Compare tab's "Find the best on this GPU" on the GPU machine: the app (headless, --tune)
# searches lesson 02 at 2048 (LESSON and SIZE to choose another) with a fresh cache, measures on the GPU and caches the ranking; then
# `tilelab-cli tune` with the same variant and size must find that ranking in the cache (the tab
# and the CLI share it, so the tab's second visit is instant too), with the same best row.
# Runs binaries built elsewhere, as scripts/gpu_gui_check.sh does (same BIN and DEBS).
# Usage: scripts/gpu_tune_gui_check.sh BIN DEBS     (writes $OUT/compare_tune_gpu.png)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bin=$(cd "${1:?usage: gpu_tune_gui_check.sh BIN DEBS}" && pwd)
debs=$(cd "${2:?usage: gpu_tune_gui_check.sh BIN DEBS}" && pwd)
. scripts/gui_runtime.sh
gui_runtime_setup "$debs"
export XDG_CONFIG_HOME=/tmp/tlconfig XDG_CACHE_HOME=/tmp/tlcache-tune
rm -rf "$XDG_CACHE_HOME"
out=${OUT:-/tmp}
lesson=${LESSON:-02}
size=${SIZE:-2048}

t0=$SECONDS
app_log=$(timeout 400 "$bin/gui/tilelab" --headless --lesson "$lesson" --size "$size" --tune --timeout 380 \
          --screenshot "$out/compare_tune_gpu.png" 2>&1); app_rc=$?
echo "$app_log" | grep -E "^tune:|^tilelab:"
echo "app: exit $app_rc after $((SECONDS - t0)) s"
ls "$XDG_CACHE_HOME"/tilelab/tune/ 2>/dev/null || echo "no ranking cached"

t1=$SECONDS
cli=$(timeout 60 "$bin/tilelab-cli" tune "$lesson" --size "$size" 2>&1); cli_rc=$?
echo "$cli" | head -20
echo "cli: exit $cli_rc after $((SECONDS - t1)) s (cached: instant)"

# The tab's best row and the CLI's first row: the same parameters.
gui_best=$(echo "$app_log" | sed -n 's/^tune: .*, first //p')
# The table's columns are two or more spaces apart; ranks are right-aligned.
cli_best=$(echo "$cli" | sed 's/^ *//' | awk -F'  +' '$1 == "1" { print $2; exit }')
status=0
[ "$app_rc" -eq 0 ] || status=1
echo "$cli" | grep -q "^cached: " || { echo "FAIL: the CLI did not find the app's ranking in the cache"; status=1; }
[ -n "$gui_best" ] && [ "$gui_best" = "$cli_best" ] || { echo "FAIL: best row app '$gui_best' vs cli '$cli_best'"; status=1; }
echo "== tune gui check: $([ $status -eq 0 ] && echo PASS || echo FAIL) (best: $gui_best) =="
exit $status
