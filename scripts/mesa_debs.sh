#!/usr/bin/env bash
# Mesa's EGL and llvmpipe (software GL) with the libraries they load, as Debian packages, for the
# GPU machine's app checks that draw on the CPU (gpu_gui_check.sh GL=software, gpu_app_probe.sh).
# The list is the closure of `ldd` over swrast_dri.so, libEGL_mesa.so.0, libgbm.so.1 and
# libglapi.so.0 on Debian 12, less the C and C++ runtimes the GPU machine has.
# Usage: scripts/mesa_debs.sh DIR      (about 50 MB; DIR then goes to MESA=DIR)
set -euo pipefail
dir=${1:?usage: mesa_debs.sh DIR}
mkdir -p "$dir"
cd "$dir"
apt-get download libegl-mesa0 libgl1-mesa-dri libgbm1 libglapi-mesa libllvm15 libdrm-amdgpu1 libdrm-intel1 \
  libdrm-nouveau2 libdrm-radeon1 libdrm2 libedit2 libelf1 libsensors5 libwayland-client0 libwayland-server0 \
  libx11-xcb1 libxcb-dri2-0 libxcb-dri3-0 libxcb-present0 libxcb-randr0 libxcb-sync1 libxcb-xfixes0 \
  libxshmfence1 libz3-4 libxml2 libicu72 libpciaccess0 libbsd0 libmd0 libffi8 libxcb1 libxau6 libxdmcp6
