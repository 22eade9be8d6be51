# shellcheck shell=bash
# Sourced by the gpu_sanitize_*.sh scripts: how each of them starts.
# sanitize_start NAME CARRY OUT: carry and out from the arguments (out made, summary.txt in it
# emptied), the CUDA libraries on the library path, sanitizer and cli to run, failed=0.
sanitize_start() {
    local name=$1
    carry=${2:?usage: gpu_sanitize_$name.sh CARRY OUT}
    out=${3:?usage: gpu_sanitize_$name.sh CARRY OUT}
    mkdir -p "$out"
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
    sanitizer=/usr/local/cuda/bin/compute-sanitizer
    cli="$carry/tilelab-cli"
    failed=0
    summary="$out/summary.txt"
    : > "$summary"
}
