#!/usr/bin/env bash
# Set up (installing missing packages), build, and run every test. GPU tests skip visibly
# where there is no GPU. Then the client-only build (TILELAB_CUDA=OFF) with the toolkit out of
# sight, its tests, and a run through this build's worker (scripts/client_only_check.sh). Last,
# the Debian package made from the build is installed, started and removed (scripts/deb_check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build -DTILELAB_WERROR=ON
(cd build && ctest --output-on-failure -j"$(nproc)" "$@")
scripts/client_only_check.sh build build-client
# The Debian package from the same build (cpack, apt-get install, start, remove); it skips with
# the reason where it cannot install (not root, no apt), and may take at most 5 minutes.
timeout 300 scripts/deb_check.sh build
