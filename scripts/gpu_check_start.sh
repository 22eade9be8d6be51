# shellcheck shell=bash
# Sourced by the GPU machine's check scripts: how each of them starts.
# gpu_check_start NAME BUILD_DIR: build is BUILD_DIR made absolute, cli its tilelab-cli; out is
# $OUT, else /tmp/tilelab-NAME, made; the CUDA libraries on the library path and the GPU locks in
# $TILELAB_LOCK_DIR (default /tmp). Run from the repository root.
gpu_check_start() {
    local name=$1
    build=$(cd "${2:?usage: scripts/gpu_$name.sh BUILD_DIR}" && pwd) || exit 2
    out=${OUT:-/tmp/tilelab-${name//_/-}}
    mkdir -p "$out"
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export TILELAB_LOCK_DIR=${TILELAB_LOCK_DIR:-/tmp}
    cli=$build/tilelab-cli
}
