#!/usr/bin/env bash
# The measured drills' reference values: on a machine with a GPU, evaluates every drill that asks
# for a measurement (`tilelab-cli drill NN --reveal --json`: each choice run, validated and timed
# as any run) and writes lessons/NN_slug/drills.reference.json under OUT with the GPU's name and
# today's date. Copy the files into lessons/ to make model mode answer those drills from them.
# Usage: scripts/drill_references.sh CLI OUT    (LESSONS="21" limits it to those lessons' numbers)
set -euo pipefail
cli=${1:?usage: drill_references.sh CLI OUT}
out=${2:?usage: drill_references.sh CLI OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
day=$(date -u +%F)
for dir in "$root"/lessons/*/; do
  lesson=$(basename "$dir")
  [ -z "${LESSONS:-}" ] || [[ " $LESSONS " == *" ${lesson%%_*} "* ]] || continue
  [ -f "$dir/drills.json" ] || continue
  grep -q '"ask": "time"' "$dir/drills.json" || continue
  "$cli" drill "${lesson%%_*}" --reveal --json --lang en > "/tmp/reveal_$lesson.json" || true
  mkdir -p "$out/$lesson"
  python3 - "$gpu" "$day" "/tmp/reveal_$lesson.json" "$out/$lesson/drills.reference.json" <<'PY'
import json, sys
gpu, day, src, dst = sys.argv[1:5]
drills = {d["id"]: d["values"] for d in json.load(open(src)) if d.get("measured") and d.get("ok") and d.get("values")}
json.dump({"gpu": gpu, "date": day, "tool": "scripts/drill_references.sh", "drills": drills}, open(dst, "w"), indent=1)
open(dst, "a").write("\n")
print(dst, drills)
PY
done
