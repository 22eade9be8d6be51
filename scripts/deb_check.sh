#!/usr/bin/env bash
# The Debian package, as a user gets it: packed by CPack from a build folder that is already built
# (no second build), installed with apt-get, started from /usr/bin (--version; a CLI compile, which
# needs the CUDA libraries and headers through the package's RUNPATH; a headless screenshot of
# lesson 01, checked to be a drawn UI), then removed again.
# Usage: scripts/deb_check.sh BUILD_DIR     (BUILD_DIR made with TILELAB_GUI=ON and built)
# Installing a package needs root and apt: elsewhere it says why it skipped, and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:?usage: scripts/deb_check.sh BUILD_DIR}" && pwd)
skip() { echo "deb-check: SKIPPED: $*"; exit 0; }
fail() { echo "deb-check: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "installing the package needs root (run scripts/deb_check.sh $1 as root to try it)."
if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then skip "no apt-get/dpkg-deb on this system."; fi
command -v cpack >/dev/null || fail "no cpack (it comes with cmake)."
if [ ! -x "$build/gui/tilelab" ] || [ ! -x "$build/tests/gui/tilelab_png_check" ]; then
  skip "$build has no app (gui/tilelab, tests/gui/tilelab_png_check): the check starts the app; build with TILELAB_GUI=ON."
fi
if dpkg-query -W -f='${Status}' tilelab 2>/dev/null | grep -q "install ok installed"; then
  skip "a tilelab package is already installed here; this check installs and removes its own (apt-get remove tilelab first)."
fi

start=$(date +%s)
scratch=$(mktemp -d)
installed=no
cleanup() {
  if [ "$installed" = yes ]; then
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq tilelab >/dev/null || echo "deb-check: could not remove tilelab" >&2
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# ---- pack: the build's own binaries, stripped -------------------------------------------------
rm -f "$build"/tilelab_*.deb
(cd "$build" && cpack -G DEB >"$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log" >&2; fail "cpack -G DEB failed."; }
deb=$(ls "$build"/tilelab_*.deb)
echo "deb-check: $(basename "$deb"), $(du -h "$deb" | cut -f1), packed in $(($(date +%s) - start)) s"
echo "deb-check: Depends: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -c "$deb" >"$scratch/contents.txt"
for f in usr/bin/tilelab usr/bin/tilelab-cli usr/bin/tilelab-gpu-worker; do
  grep -q " \./$f\$" "$scratch/contents.txt" || fail "$(basename "$deb") has no /$f."
done

# ---- install, with apt resolving the declared dependencies ----------------------------------
installed=yes
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$scratch/apt.log" 2>&1 ||
  { cat "$scratch/apt.log" >&2; fail "apt-get install $(basename "$deb") failed."; }
for p in tilelab tilelab-cli tilelab-gpu-worker; do
  missing=$(ldd "/usr/bin/$p" | grep "not found" || true)
  [ -z "$missing" ] || fail "/usr/bin/$p: $missing"
done

# ---- start it, from /usr/bin, with nothing of the build folder in reach ---------------------
export XDG_CACHE_HOME="$scratch/cache" XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data"
unset TILELAB_GPU_WORKER TILELAB_CLI
version=$(cd "$scratch" && /usr/bin/tilelab --version) || fail "tilelab --version failed."
echo "deb-check: tilelab --version: $version"
(cd "$scratch" && TILELAB_MODEL_MODE=1 /usr/bin/tilelab-cli compile matmul.smem_tiled --set TILE=16 >"$scratch/compile.log" 2>&1) ||
  { cat "$scratch/compile.log" >&2; fail "tilelab-cli compile (NVRTC through the package's RUNPATH) failed."; }
grep -q "registers" "$scratch/compile.log" || { cat "$scratch/compile.log" >&2; fail "tilelab-cli compile printed no ptxas report."; }
(cd "$scratch" && TILELAB_MODEL_MODE=1 timeout 120 /usr/bin/tilelab --headless --lesson 01 --gl-device software \
   --screenshot "$scratch/out.png" >"$scratch/app.log" 2>&1) || { cat "$scratch/app.log" >&2; fail "the headless screenshot failed."; }
"$build/tests/gui/tilelab_png_check" "$scratch/out.png" 1600 900 ||
  fail "the installed app's screenshot is not a drawn UI."

# ---- remove ---------------------------------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq tilelab >/dev/null || fail "apt-get remove tilelab failed."
installed=no
[ ! -e /usr/bin/tilelab ] || fail "/usr/bin/tilelab is still there after apt-get remove."
echo "deb-check: ok: packed, installed, started (--version, a compile, a headless screenshot) and removed in $(($(date +%s) - start)) s"
