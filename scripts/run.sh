#!/usr/bin/env bash
# Set up (installing missing packages), build, and start the app.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
exec build/gui/tilelab "$@"
