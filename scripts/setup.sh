#!/usr/bin/env bash
# Installs the Debian packages TileLab needs (only those missing), then configures and builds.
# Usage: scripts/setup.sh [BUILD_DIR] [extra cmake args...]
# TILELAB_GUI=OFF skips the GUI packages and target (e.g. on the GPU machine).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}; shift || true
gui=${TILELAB_GUI:-ON}

pkgs=(cmake g++ make pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libmd4c-dev)
# ssh reaches a shared GPU machine (--gpu-host); the tests start their own sshd on 127.0.0.1.
pkgs+=(openssh-client openssh-server)
if [ "$gui" = ON ]; then
  pkgs+=(libimgui-dev libglfw3-dev python3-glad libegl-dev libgl-dev libstb-dev libegl-mesa0
         libgl1-mesa-dri fonts-dejavu-core fonts-wqy-microhei fontconfig libfontconfig-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ] && [ ! -f "$cuda/include/nvrtc.h" ]; then
  echo "setup: the CUDA Toolkit was not found at $cuda (set CUDA_HOME). TileLab needs its NVRTC, cudart and cuBLAS." >&2
  exit 1
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILELAB_GUI="$gui" \
      -DCUDAToolkit_ROOT="$cuda" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
