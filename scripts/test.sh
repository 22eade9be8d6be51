#!/usr/bin/env bash
# Set up (installing missing packages), build, and run every test. GPU tests skip visibly
# where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build -DTILELAB_WERROR=ON
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
