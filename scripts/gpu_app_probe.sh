#!/usr/bin/env bash
# Why the app's GPU worker failed on the H100 (2026-12-05, docs/benchmarks.md): at every app start
# "hardware counters not prepared: cudaMalloc: unspecified launch failure", then seconds a drag,
# while the GPU tests (no GL context) passed with counters. One device call, each probe capped, in
# the order that splits the suspects: the CLI alone (counters, then counters with stall samples,
# as the app's full run asks), then lesson 01's drag in the app drawing on the GPU (EGL device 0),
# on Mesa (software), and on the GPU with the worker's CUPTI set-up left to the first pass.
# Usage: [MESA=DIR] scripts/gpu_app_probe.sh CARRY [DEBS]     e.g. scripts/gpu_app_probe.sh .carry .gl-debs
# Prints each probe's worker lines, stage times and drag summary; full logs under ${OUT:-/tmp}/app_probe.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
carry=${1:?usage: gpu_app_probe.sh CARRY [DEBS]}
debs=${2:-.gl-debs}
mesa=${MESA:-$debs/mesa}   # Mesa's packages (scripts/mesa_debs.sh); without them the software probe fails at once
out=${OUT:-/tmp}/app_probe
mkdir -p "$out"
. scripts/gui_runtime.sh
gui_runtime_setup "$debs" > /dev/null 2>&1
export XDG_CONFIG_HOME=/tmp/tlconfig XDG_CACHE_HOME=/tmp/tlcache
m=/tmp/mesaroot/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/mesaroot
for f in "$mesa"/*.deb; do [ -e "$f" ] && dpkg -x "$f" /tmp/mesaroot; done
soft=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$m" "LIBGL_DRIVERS_PATH=$m/dri"
      "__EGL_VENDOR_LIBRARY_FILENAMES=$__EGL_VENDOR_LIBRARY_FILENAMES:/tmp/mesaroot/usr/share/glvnd/egl_vendor.d/50_mesa.json")

# probe NAME SECONDS CMD...: its output in $out/NAME.log; the lines that tell what happened, printed.
probe() {
    local name=$1 limit=$2
    shift 2
    pkill -f tilelab-gpu-worker 2> /dev/null
    local t0=$SECONDS
    timeout -k 5 "$limit" "$@" > "$out/$name.log" 2>&1
    echo "== $name: exit $? in $((SECONDS - t0)) s"
    grep -E 'tilelab-gpu-worker:|error|failure|stages:|drag-summary|DRAM|dram|counters' "$out/$name.log" | grep -v 'latency: frame' | cut -c1-240 | head -12
}

# Anything already on the GPU (a worker or app a cut call left behind) is a suspect too.
gpu_users() {
    echo "-- on the GPU $1: $(nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader | tr '\n' ';')"
    echo "-- GPU $1 (busy %, memory used, SM clock, compute mode): $(nvidia-smi --query-gpu=utilization.gpu,memory.used,clocks.sm,compute_mode --format=csv,noheader)"
    echo "-- tilelab processes $1: $(pgrep -fa 'tilelab' | grep -v gpu_app_probe | cut -c1-120 | tr '\n' ';')"
}
gpu_users "at start"
probe cli_counters 90 "$carry/tilelab-cli" run 01 --size 1024
probe cli_counters_stalls 90 "$carry/tilelab-cli" run 01 --size 1024 --stalls
app=("$carry/gui/tilelab" --headless --lesson 01 --drag auto --drag-values 3 --log-latency)
probe app_gl_gpu 100 "${app[@]}" --gl-device gpu
probe app_gl_software 100 "${soft[@]}" "${app[@]}" --gl-device software
probe app_gl_gpu_no_prepare 100 env TILELAB_HW_PREPARE=0 "${app[@]}" --gl-device gpu
pkill -f tilelab-gpu-worker 2> /dev/null
gpu_users "at the end"
(dmesg 2> /dev/null | grep -i xid | tail -5) || true
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
