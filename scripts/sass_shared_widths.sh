#!/usr/bin/env bash
# Which shared-memory instructions ptxas emits for a kernel template instantiation: counts of
# LDS/STS by width (LDS = 4 bytes, LDS.64, LDS.128), to check the widths the bank model assumes
# (tilelab/banks.h: a site's width_bytes). Needs nvcc and cuobjdump (the GPU machine has both).
# Usage: scripts/sass_shared_widths.sh HEADER KERNEL 'TEMPLATE ARGS' 'PARAMETER TYPES' [ARCH]
#   e.g. scripts/sass_shared_widths.sh matmul/register_1d.cuh register_1d_matmul '64,16,4' \
#          'const float*, const float*, float*, int, int, int, unsigned long long*'
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
header=${1:?usage: sass_shared_widths.sh HEADER KERNEL ARGS TYPES [ARCH]}
kernel=${2:?}; args=${3:?}; types=${4:?}; arch=${5:-sm_90}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include "%s"\ntemplate __global__ void %s<%s>(%s);\n' "$header" "$kernel" "$args" "$types" > "$tmp/k.cu"
nvcc -arch="$arch" -cubin -O3 -I"$root/kernels" -o "$tmp/k.cubin" "$tmp/k.cu"
counts=$(cuobjdump -sass "$tmp/k.cubin" | grep -oE '\b(LDS|STS)(\.U8|\.S8|\.U16|\.S16|\.64|\.128)?\b' | sort | uniq -c |
         awk '{printf "%s %s; ", $2, $1}')
echo "$kernel<$args> $arch: ${counts:-no shared instructions}"
