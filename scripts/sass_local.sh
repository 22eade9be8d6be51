#!/usr/bin/env bash
# Fetches an nvdisasm that reads sm_90 SASS, for scripts/sass_loops.py on a machine without a GPU
# (the CUDA 13 toolkit here has none): Debian's non-free nvidia-cuda-toolkit (CUDA 11.8, 84 MB),
# downloaded with a sources list of its own (the system's apt sources are not touched), and only
# its nvdisasm kept. Prints the path; a second run finds it there.
# Usage: scripts/sass_local.sh [DIR]      (default ~/.cache/tilelab-nvdisasm)
set -euo pipefail
dir=${1:-$HOME/.cache/tilelab-nvdisasm}
if [ -x "$dir/nvdisasm" ]; then echo "$dir/nvdisasm"; exit 0; fi
. /etc/os-release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir" "$work/lists/partial" "$work/parts"
cat > "$work/parts/non-free.sources" <<SOURCES
Types: deb
URIs: http://deb.debian.org/debian
Suites: ${VERSION_CODENAME:-bookworm}
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt=(-o Dir::Etc::sourcelist=- -o Dir::Etc::sourceparts="$work/parts" -o Dir::State::Lists="$work/lists")
apt-get "${apt[@]}" update > "$work/update.log" 2>&1 || { cat "$work/update.log" >&2; exit 1; }
(cd "$work" && apt-get "${apt[@]}" download nvidia-cuda-toolkit > download.log 2>&1) || { cat "$work/download.log" >&2; exit 1; }
dpkg-deb --fsys-tarfile "$work"/nvidia-cuda-toolkit_*.deb | tar -x -C "$work" ./usr/bin/nvdisasm
mv "$work/usr/bin/nvdisasm" "$dir/nvdisasm"
echo "$dir/nvdisasm"
