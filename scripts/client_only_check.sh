#!/usr/bin/env bash
# The client-only build (TILELAB_CUDA=OFF), as a laptop without the CUDA Toolkit builds it: with
# the toolkit out of sight (no cuda on PATH, no CUDA_HOME, CMake told not to look for it). Checks
# that no CUDA header was included and no binary links cudart, NVRTC or cuBLAS, runs the client-
# only tests, then `tilelab-cli run 02` through the full build's worker over --stdio (no GPU
# needed: the worker compiles), which must show the registers of the worker's compile.
# Usage: scripts/client_only_check.sh FULL_BUILD_DIR [CLIENT_BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
full=$(cd "${1:?the full build folder (with tilelab-gpu-worker)}" && pwd); shift
client=${1:-build-client}; shift || true
worker="$full/tilelab-gpu-worker"
[ -x "$worker" ] || { echo "client-only: $worker is not there; build the full build first." >&2; exit 1; }

# The toolkit out of sight: PATH without any CUDA folder, and no variable that points at it.
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vi cuda | paste -sd: -)
export PATH
unset CUDA_HOME CUDA_PATH CUDAToolkit_ROOT CUDACXX CPATH LIBRARY_PATH LD_LIBRARY_PATH

cmake -S . -B "$client" -DCMAKE_BUILD_TYPE=Release -DTILELAB_CUDA=OFF \
      -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DTILELAB_GUI=OFF -DTILELAB_WERROR=ON \
      -DTILELAB_TEST_GPU_WORKER="$worker" "$@" >/dev/null
cmake --build "$client" -j"$(nproc)"

# No CUDA header in any object's dependencies, no CUDA folder in any compile command.
if grep -rlsi --include='*.d' '/cuda' "$client/CMakeFiles" "$client/tests" >/dev/null ||
   grep -qi '/cuda' "$client/compile_commands.json"; then
  echo "client-only: the client-only build used the CUDA Toolkit:" >&2
  grep -rlsi --include='*.d' '/cuda' "$client/CMakeFiles" "$client/tests" | head >&2 || true
  exit 1
fi
# No binary links a CUDA library.
linked=0
while IFS= read -r bin; do
  if readelf -d "$bin" 2>/dev/null | grep -Ei 'NEEDED.*lib(cudart|nvrtc|cublas|cuda)\b'; then
    echo "client-only: $bin links a CUDA library" >&2
    linked=1
  fi
done < <(find "$client" -maxdepth 2 -type f -perm -u+x ! -name '*.sh' ! -name '*.cmake')
[ "$linked" = 0 ] || exit 1
[ ! -e "$client/tilelab-gpu-worker" ] || { echo "client-only: the GPU worker was built" >&2; exit 1; }
echo "client-only: no CUDA header included, no CUDA library linked, no GPU worker built"

(cd "$client" && ctest --output-on-failure -j"$(nproc)")

# End to end: model mode on this machine, registers from the worker's compile.
out=$("$client/tilelab-cli" run 02 --gpu-command "$worker --stdio" 2>&1) || true
printf '%s\n' "$out" | grep -E 'ptxas|Occupancy|occupancy' || true
if ! printf '%s\n' "$out" | grep -q 'registers/thread'; then
  printf 'client-only: `tilelab-cli run 02 --gpu-command ...` showed no registers:\n%s\n' "$out" >&2
  exit 1
fi
echo "client-only: OK"
