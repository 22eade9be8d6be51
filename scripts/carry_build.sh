#!/usr/bin/env bash
# Copies the binaries the GPU machine needs out of a build folder, stripped, in the layout
# scripts/gpu_check.sh and scripts/gpu_gui_check.sh expect (tilelab-cli and tilelab-gpu-worker
# side by side, tests/ and gui/ one folder down). DEST should be git-ignored and named in the
# device tool's `carry`; stripped, the whole set is a few tens of MB.
# Usage: scripts/carry_build.sh BUILD DEST
set -euo pipefail
build=${1:?usage: carry_build.sh BUILD DEST}
dest=${2:?usage: carry_build.sh BUILD DEST}
rm -rf "$dest"; mkdir -p "$dest/tests" "$dest/gui" "$dest/bench"
for f in tilelab-cli tilelab-gpu-worker tests/tilelab_tests tests/exercise_typist tests/fake_gpu_worker gui/tilelab bench/compile_bench bench/compile_sweep; do
  [ -x "$build/$f" ] || { echo "carry_build: $build/$f is missing (skipped)" >&2; continue; }
  strip -o "$dest/$f" "$build/$f"
done
du -sh "$dest"
