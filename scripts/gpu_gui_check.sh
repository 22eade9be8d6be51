#!/usr/bin/env bash
# The app on the GPU machine: live-kernel screenshots of every lesson (docs/screenshots/), the
# change-to-redraw latency of a drag in every lesson (cold and warm caches) and the walk through
# every lesson, step and panel. Runs binaries built elsewhere (the GPU machine has no Debian
# packages): BIN holds gui/tilelab, tilelab-gpu-worker and tilelab-cli (the lesson list;
# scripts/carry_build.sh makes it), DEBS the output of shared/scripts/gl-debs.sh plus, in
# DEBS/extra, fonts-dejavu-core, fonts-wqy-microhei (Chinese) and the app's fontconfig with its
# libraries (apt-get download libfontconfig1 fontconfig-config libfreetype6 libpng16-16 libbrotli1
# libexpat1), and,
# optionally, Mesa's EGL/llvmpipe packages and their dependencies in DEBS/mesa or the folder MESA
# names (scripts/mesa_debs.sh fetches them; about 50 MB, so .carry, .gl-debs and these exceed one
# call's 64 MiB together: carry them in a call of their own first, the machine keeps them while warm).
# Usage: scripts/gpu_gui_check.sh BIN DEBS
# Env:   LESSONS="02 06" checks only these lessons (screenshots and drags; the walk still visits
#        every lesson), for a short session on the GPU machine. Default: every lesson.
#        WALK=0 skips the walk (up to 5 minutes) for an even shorter one. WALK_ARGS adds the app's
#        options to the walk, e.g. WALK_ARGS="--lang zh --width 1280 --height 720" (a projector, in
#        Chinese); default: English at 1600x900.
#        DRAG=NAME drags that parameter instead of the first one with two other valid values.
#        MONKEY=N adds N random user actions with the real worker (--monkey; MONKEY_SEED, default 1).
#        GL=software draws every app of the check with Mesa on the CPU (needs Mesa's packages), for a GPU
#        whose own GL is slow; GL=gpu on the GPU; default: the app's choice (--gl-device auto).
# PNGs and logs are written to a work folder and packed into $OUT/gui_check.tar (the device
# tool brings back only a few files).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bin=$(cd "${1:?usage: gpu_gui_check.sh BIN DEBS}" && pwd)
debs=$(cd "${2:?usage: gpu_gui_check.sh BIN DEBS}" && pwd)
mesa=${MESA:-$debs/mesa}
out=/tmp/tilelab-gui-check; rm -rf "$out"; mkdir -p "$out"

. scripts/gui_runtime.sh
gui_runtime_setup "$debs"
export XDG_CONFIG_HOME=/tmp/tlconfig XDG_CACHE_HOME=/tmp/tlcache
app="$bin/gui/tilelab"

# TileLab processes left running by an earlier command (a test run stopped by `timeout` leaves its
# GPU workers behind) would share the GPU with every drag measured here: stop them first.
. scripts/stray_processes.sh
strays=$(stop_tilelab_processes)
[ "$strays" -eq 0 ] || echo "gui_check: stopped $strays TileLab processes left running"
# And when this script ends, also when an outer `timeout` stops it (bash runs the trap once the
# command in the foreground returns): nothing it started keeps the GPU for the next command.
trap 'stop_tilelab_processes >/dev/null' EXIT
trap 'exit 143' TERM INT

# Mesa's software renderer (MESA or DEBS/mesa, optional), unpacked into its own root: with
# --gl-device software the app draws on the CPU, apart from the GPU that runs the kernels.
soft_env=()
if ls "$mesa"/*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/mesaroot; for f in "$mesa"/*.deb; do dpkg -x "$f" /tmp/mesaroot; done
  m=/tmp/mesaroot/usr/lib/x86_64-linux-gnu
  soft_env=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$m" "LIBGL_DRIVERS_PATH=$m/dri"
            "__EGL_VENDOR_LIBRARY_FILENAMES=$__EGL_VENDOR_LIBRARY_FILENAMES:/tmp/mesaroot/usr/share/glvnd/egl_vendor.d/50_mesa.json")
fi

# Every app of the check but the long-kernel pair below, which compares the two on purpose.
case "${GL:-auto}" in
  auto) app_run=("$app") ;;
  gpu) app_run=("$app" --gl-device gpu) ;;
  software) [ ${#soft_env[@]} -gt 0 ] || { echo "GL=software needs Mesa's packages in $mesa"; exit 2; }
            app_run=("${soft_env[@]}" "$app" --gl-device software) ;;
  *) echo "GL must be auto, gpu or software, not ${GL}"; exit 2 ;;
esac

status=0
t0=$SECONDS
step() { echo "gui_check: $1 done at $((SECONDS - t0)) s"; }
# The lessons, from `tilelab-cli list --json` (no list kept here).
lessons=$("$bin/tilelab-cli" list --json | python3 -c '
import json, sys
for lesson in json.load(sys.stdin)["lessons"]:
    print(lesson["id"].split("_")[0])
') || { echo "tilelab-cli list --json failed"; exit 1; }
[ -n "$lessons" ] || { echo "no lessons listed"; exit 1; }
if [ -n "${LESSONS:-}" ]; then
  for l in $LESSONS; do grep -qx "$l" <<<"$lessons" || { echo "LESSONS: no lesson $l"; exit 2; }; done
  lessons=$(tr ' ' '\n' <<<"$LESSONS")
fi

while read -r l; do
  timeout 120 "${app_run[@]}" --headless --lesson "$l" --screenshot "$out/lesson_$l.png" --log-latency \
    >"$out/lesson_$l.log" 2>&1 || { echo "lesson $l: exit $?"; status=1; }
done <<<"$lessons"
timeout 60 "${app_run[@]}" --headless --lesson 02 --panel memory --screenshot "$out/panel_memory.png" >/dev/null 2>&1
timeout 60 "${app_run[@]}" --headless --lesson 05 --panel occupancy --screenshot "$out/panel_occupancy.png" >/dev/null 2>&1
timeout 60 "${app_run[@]}" --headless --lesson 05 --panel tiles --screenshot "$out/panel_tiles.png" >/dev/null 2>&1
step "screenshots"

# Latency: in every lesson at its default size, a drag over 4 values of its parameter, first
# with a fresh cache folder (every kernel not compiled ahead is an NVRTC compile), then again
# with that folder warm (disk hits; a new process, so the memory cache starts empty). Between
# values the drag pauses until compile-ahead is idle (at most 2 s): the pause a user makes.
# The parameter is the first one with two other valid values at the lesson's first step (--drag
# auto); after the drag, a jump to the far end of that slider times a fresh compile (cold pass).
while read -r l; do
  cache="/tmp/tlcache-drag-$l"; rm -rf "$cache"
  for pass in cold warm; do
    XDG_CACHE_HOME="$cache" timeout 150 "${app_run[@]}" --headless --lesson "$l" --drag "${DRAG:-auto}" --drag-values 4 \
      --log-latency >"$out/drag_${l}_$pass.log" 2>&1 || { echo "lesson $l $pass drag: exit $?"; status=1; }
    step "lesson $l drag ($pass)"
  done
done <<<"$lessons"

if [ "${WALK:-1}" = 1 ]; then
  # shellcheck disable=SC2086 # WALK_ARGS is a list of options
  timeout 300 "${app_run[@]}" --headless --walk --check-layout --timeout 300 ${WALK_ARGS:-} >"$out/walk.log" 2>&1 || { echo "walk failed"; status=1; }
  step "walk"
else
  echo "walk skipped (WALK=0)" >"$out/walk.log"
fi
# MONKEY=N: N random user actions with the real worker (headless_monkey.cpp), MONKEY_SEED (1).
if [ "${MONKEY:-0}" -gt 0 ]; then
  timeout 600 "${app_run[@]}" --headless --monkey "$MONKEY" --monkey-seed "${MONKEY_SEED:-1}" --timeout 120 >"$out/monkey.log" 2>&1 ||
    { echo "monkey failed"; status=1; }
  step "monkey"
fi
# Frames while a long kernel runs: naive matmul at 8192³ (about 200 ms a launch on an H200), with
# GL on the same GPU and, where Mesa is here, on the CPU.
timeout 120 "$app" --headless --gl-device gpu --lesson 01 --size 8192 --log-latency >"$out/long_kernel_gpu_gl.log" 2>&1 || status=1
if [ ${#soft_env[@]} -gt 0 ]; then
  timeout 120 "${soft_env[@]}" "$app" --headless --gl-device software --lesson 01 --size 8192 --log-latency \
    >"$out/long_kernel_software_gl.log" 2>&1 || status=1
  timeout 120 "${soft_env[@]}" "$app" --headless --gl-device software --lesson 02 --drag TILE --drag-values 4 \
    --log-latency >"$out/drag_warm_software_gl.log" 2>&1 || status=1
fi

# Per value: the quick validated result ("redrawn"), then the full one; per request, the stages
# (--log-latency) are in the logs.
# (lesson 02's, or the first lesson's of LESSONS where 02 is not among them)
first=02; grep -qx 02 <<<"$lessons" || first=$(head -1 <<<"$lessons")
echo "== first frame / drag in lesson $first (cold caches) =="
grep -E "first frame|^drag:|^drag-summary:|^compile-ahead:|^frames:" "$out/drag_${first}_cold.log"
echo "== drag in lesson $first (warm) =="; grep -E "^drag:|^drag-summary:|^compile-ahead:|^frames:" "$out/drag_${first}_warm.log"
echo "== walk =="; tail -3 "$out/walk.log"
[ -f "$out/monkey.log" ] && { echo "== monkey =="; grep -E "^monkey:|^tilelab:" "$out/monkey.log" | tail -3; }
for f in "$out"/long_kernel_*.log "$out"/drag_warm_software_gl.log; do
  [ -f "$f" ] && { echo "== $(basename "$f") =="; grep -E "^headless:|^drag:|^drag-summary:|^frames:|^latency: request" "$f" | head -20; }
done
ls -la "$out"/*.png
mkdir -p "${OUT:-/tmp}" && tar -C "$out" -cf "${OUT:-/tmp}/gui_check.tar" .

# Last: one row per lesson from the drag-summary lines (ms; median, worst in brackets).
echo "== drag latency per lesson (ms: median (worst)) =="
python3 - "$out" <<'PY'
import glob, os, re, sys
out = sys.argv[1]
def summary(path):
    if not os.path.exists(path):
        return None
    for line in open(path, errors="replace"):
        if line.startswith("drag-summary:"):
            return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    return None
print("| lesson | param | cold quick median (worst) | warm quick median (worst) | warm full median (worst) | prefetch hits (cold, warm) | far jump, fresh compile (cold) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for cold_log in sorted(glob.glob(os.path.join(out, "drag_*_cold.log"))):
    lesson = re.search(r"drag_(\w+?)_cold", cold_log).group(1)
    cold, warm = summary(cold_log), summary(cold_log.replace("_cold", "_warm"))
    if not cold and not warm:
        print(f"| {lesson} | ? | failed | failed | failed | | |")
        continue
    def mw(s, kind):
        return f"{s[kind + '_median_ms']} ({s[kind + '_worst_ms']})" if s else "failed"
    param = (cold or warm)["param"]
    hits = f"{cold['prefetch_hits'] if cold else '-'}, {warm['prefetch_hits'] if warm else '-'}"
    jump = f"{cold['jump_ms']} ({cold['jump_kernel']})" if cold and cold.get("jump_kernel", "none") != "none" else "-"
    print(f"| {lesson} | {param} | {mw(cold, 'quick')} | {mw(warm, 'quick')} | {mw(warm, 'full')} | {hits} | {jump} |")
PY
exit $status
