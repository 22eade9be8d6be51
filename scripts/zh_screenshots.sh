#!/usr/bin/env bash
# Renders every lesson in Chinese (headless, EGL on Mesa's llvmpipe) into docs/screenshots/zh/,
# after a walk of every lesson x step x tab in Chinese that fails on any character missing from the
# font atlas. Run after the lesson.zh.md texts change: scripts/zh_screenshots.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
app="$build/gui/tilelab"
[ -x "$app" ] || { echo "zh_screenshots: build the app first ($app missing)" >&2; exit 1; }
out=docs/screenshots/zh
mkdir -p "$out"
"$app" --headless --lang zh --model --gl-device software --walk
for dir in lessons/[0-9][0-9]_*/; do
  n=$(basename "$dir"); n=${n%%_*}
  "$app" --headless --lang zh --model --gl-device software --lesson "$n" --width 1600 --height 900 \
         --screenshot "$out/lesson_$n.png"
  echo "zh_screenshots: $out/lesson_$n.png"
done
