#!/usr/bin/env bash
# The app on the GPU machine: live-kernel screenshots of every lesson (docs/screenshots/), the
# change-to-redraw latency (cached and fresh compile) and the walk through every lesson, step
# and panel. Runs binaries built elsewhere (the GPU machine has no Debian packages): BIN holds
# gui/tilelab and tilelab-gpu-worker, DEBS the output of shared/scripts/gl-debs.sh plus
# fonts-dejavu-core in DEBS/extra and, optionally, Mesa's EGL/llvmpipe packages and their
# dependencies in DEBS/mesa (apt-get download libegl-mesa0 libgl1-mesa-dri libgbm1 ... ).
# Usage: scripts/gpu_gui_check.sh BIN DEBS
# PNGs and logs are written to a work folder and packed into $OUT/gui_check.tar (the device
# tool brings back only a few files).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bin=$(cd "${1:?usage: gpu_gui_check.sh BIN DEBS}" && pwd)
debs=$(cd "${2:?usage: gpu_gui_check.sh BIN DEBS}" && pwd)
out=/tmp/tilelab-gui-check; rm -rf "$out"; mkdir -p "$out"

# GL/EGL loaders onto /, the app's other runtime libraries into a private root (never onto /).
for f in "$debs"/gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/tlroot; for f in "$debs"/extra/*.deb; do dpkg -x "$f" /tmp/tlroot; done
export LD_LIBRARY_PATH=/tmp/tlroot/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export TILELAB_FONT_DIR=/tmp/tlroot/usr/share/fonts/truetype/dejavu
export XDG_CONFIG_HOME=/tmp/tlconfig XDG_CACHE_HOME=/tmp/tlcache
app="$bin/gui/tilelab"

# Mesa's software renderer (DEBS/mesa, optional), unpacked into its own root: with
# --gl-device software the app draws on the CPU, apart from the GPU that runs the kernels.
soft_env=()
if ls "$debs"/mesa/*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/mesaroot; for f in "$debs"/mesa/*.deb; do dpkg -x "$f" /tmp/mesaroot; done
  m=/tmp/mesaroot/usr/lib/x86_64-linux-gnu
  soft_env=(env "LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$m" "LIBGL_DRIVERS_PATH=$m/dri"
            "__EGL_VENDOR_LIBRARY_FILENAMES=$__EGL_VENDOR_LIBRARY_FILENAMES:/tmp/mesaroot/usr/share/glvnd/egl_vendor.d/50_mesa.json")
fi

status=0
for l in 01 02 03 04 05 06 07 08 09; do
  timeout 120 "$app" --headless --lesson "$l" --screenshot "$out/lesson_$l.png" --log-latency \
    >"$out/lesson_$l.log" 2>&1 || { echo "lesson $l: exit $?"; status=1; }
done
timeout 60 "$app" --headless --lesson 02 --panel memory --screenshot "$out/panel_memory.png" >/dev/null 2>&1
timeout 60 "$app" --headless --lesson 04 --panel occupancy --screenshot "$out/panel_occupancy.png" >/dev/null 2>&1
timeout 60 "$app" --headless --lesson 04 --panel tiles --screenshot "$out/panel_tiles.png" >/dev/null 2>&1
# Latency: first a drag over TILE at 2048 with cold caches (fresh compiles), then again warm.
timeout 200 "$app" --headless --lesson 02 --size 2048 --drag TILE --log-latency >"$out/drag_cold.log" 2>&1 || status=1
timeout 200 "$app" --headless --lesson 02 --size 2048 --drag TILE --log-latency >"$out/drag_warm.log" 2>&1 || status=1
timeout 300 "$app" --headless --walk --timeout 300 >"$out/walk.log" 2>&1 || { echo "walk failed"; status=1; }
# Frames while a long kernel runs: naive matmul at 8192³ (about 200 ms a launch on an H200), with
# GL on the same GPU and, where Mesa is here, on the CPU.
timeout 120 "$app" --headless --gl-device gpu --lesson 01 --size 8192 --log-latency >"$out/long_kernel_gpu_gl.log" 2>&1 || status=1
if [ ${#soft_env[@]} -gt 0 ]; then
  timeout 120 "${soft_env[@]}" "$app" --headless --gl-device software --lesson 01 --size 8192 --log-latency \
    >"$out/long_kernel_software_gl.log" 2>&1 || status=1
  timeout 200 "${soft_env[@]}" "$app" --headless --gl-device software --lesson 02 --size 2048 --drag TILE --log-latency \
    >"$out/drag_warm_software_gl.log" 2>&1 || status=1
fi

# Per value: the quick validated result ("redrawn"), then the full one; per request, the stages
# (--log-latency) are in the logs.
echo "== first frame / latency (cold compile) =="; grep -E "first frame|^drag:|^frames:" "$out/drag_cold.log"
echo "== latency (cached) =="; grep -E "^drag:|^frames:" "$out/drag_warm.log"
echo "== walk =="; tail -3 "$out/walk.log"
for f in "$out"/long_kernel_*.log "$out"/drag_warm_software_gl.log; do
  [ -f "$f" ] && { echo "== $(basename "$f") =="; grep -E "^headless:|^drag:|^frames:|^latency: request" "$f" | head -20; }
done
ls -la "$out"/*.png
tar -C "$out" -cf "${OUT:-/tmp}/gui_check.tar" .
exit $status
