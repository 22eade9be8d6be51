#!/usr/bin/env bash
# The client-only build on the GPU machine (issue #19): a client built with TILELAB_CUDA=OFF
# (CLIENT_DIR/tilelab-cli) drives the full build's worker (FULL_DIR/tilelab-gpu-worker --stdio),
# which compiles and runs every kernel. Each lesson must compile in the worker, validate and be
# counted, and give the same registers as the full build's own CLI. Prints one line per lesson,
# then "client-only on GPU: OK" or the lessons that differ.
# Usage: scripts/gpu_client_only_check.sh FULL_DIR CLIENT_DIR
set -uo pipefail
full=$(cd "${1:?usage: scripts/gpu_client_only_check.sh FULL_DIR CLIENT_DIR}" && pwd) || exit 2
client=$(cd "${2:?usage: scripts/gpu_client_only_check.sh FULL_DIR CLIENT_DIR}" && pwd) || exit 2
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export TILELAB_LOCK_DIR=${TILELAB_LOCK_DIR:-/tmp}
bad=0
for l in ${LESSONS:-02 04 05 08 10}; do
  c=$("$client/tilelab-cli" run "$l" --reps 5 --gpu-command "$full/tilelab-gpu-worker --stdio" 2>&1); rc=$?
  f=$("$full/tilelab-cli" run "$l" --reps 5 2>&1)
  regs_c=$(printf '%s\n' "$c" | grep -o '[0-9]* registers/thread' | head -1)
  regs_f=$(printf '%s\n' "$f" | grep -o '[0-9]* registers/thread' | head -1)
  pass=$(printf '%s\n' "$c" | grep -c 'PASS')
  echo "lesson $l: client-only exit $rc, $regs_c (full build: $regs_f), PASS lines $pass"
  if [ "$rc" != 0 ] || [ -z "$regs_c" ] || [ "$regs_c" != "$regs_f" ] || [ "$pass" = 0 ]; then bad=1; fi
done
[ "$bad" = 0 ] && echo "client-only on GPU: OK" || { echo "client-only on GPU: FAILED (see the lines above)"; exit 1; }
