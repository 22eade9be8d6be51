#!/usr/bin/env bash
# The several-GPUs check (issue #19 part 5), on the GPU machine (an nvidia-h200-x2), from a build
# folder (tilelab-cli and tilelab-gpu-worker side by side). A 2-D sweep of lesson 07 (register cap
# MAXREG x UNROLL: 120 points, every one compiled, run and validated; --no-count --no-hardware for
# speed) is timed on one GPU, then spread with --gpus all. A first untimed pass compiles every
# kernel into the disk cache, so both timed passes find them cached. Prints a short table last:
# points, wall time on 1 GPU and on all, the ratio (target <= 0.6 on two GPUs) and how many
# points each GPU took. With one GPU only, the second pass runs two workers on it (--gpus 0,0:
# they take turns through the GPU's lock, so expect no speed-up) and the table says so.
# Usage: scripts/gpu_multi_check.sh BUILD_DIR        (logs and JSON in $OUT, default /tmp/tilelab-multi-check)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/gpu_check_start.sh
. scripts/gpu_check_start.sh
gpu_check_start multi_check "$@"

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
many=all; note=""
if [ "${gpus:-0}" -lt 2 ]; then
  many=0,0; note=" (one GPU here: two workers on it, no speed-up expected)"
fi
maxreg="0,$(seq -s, 40 4 192)"
sweep=(sweep 07 --param MAXREG --values "$maxreg" --param2 UNROLL --values2 0,1,2
       --reps "${REPS:-10}" --warmup 2 --no-count --json)

echo "== $gpus GPU(s); warming the compile cache (untimed, --gpus $many)"
"$cli" "${sweep[@]}" --gpus "$many" > "$out/warm.json" 2> "$out/warm.err"
echo "   warm pass exit $?"

timed() {   # timed NAME ARGS...: wall seconds of one sweep, its JSON in $out/NAME.json
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$cli" "${sweep[@]}" "$@" > "$out/$name.json" 2> "$out/$name.err"
  echo $? > "$out/$name.rc"
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)" > "$out/$name.s"
}
echo "== one GPU"
timed one
echo "== --gpus $many"
timed many --gpus "$many"

python3 - "$out" "$many" "$note" <<'EOF'
import json, sys, collections
out, many, note = sys.argv[1], sys.argv[2], sys.argv[3]
def load(name):
    try:
        points = json.load(open(f"{out}/{name}.json"))
    except Exception as e:
        return None, str(e)
    return points, None
rows = []
one, err1 = load("one")
two, err2 = load("many")
t1 = float(open(f"{out}/one.s").read()); t2 = float(open(f"{out}/many.s").read())
rc1 = open(f"{out}/one.rc").read().strip(); rc2 = open(f"{out}/many.rc").read().strip()
def run_points(p): return [x for x in (p or []) if x.get("measured")]
def passed(p): return sum(1 for x in run_points(p) if (x.get("validation") or {}).get("passed"))
n1, n2 = len(run_points(one)), len(run_points(two))
per_gpu = collections.Counter(x.get("gpu", "?") for x in run_points(two))
ratio = t2 / t1 if t1 > 0 else float("nan")
# The ratio counts only when both passes measured and validated the same >= 100 points.
sound = rc1 == rc2 == "0" and n1 == n2 >= 100 and passed(one) == n1 and passed(two) == n2
verdict = ("OK" if ratio <= 0.6 else "NOT MET") if sound else "NOT COMPARABLE (a pass failed or measured fewer points)"
print()
print("| check | value |")
print("| --- | --- |")
print(f"| points measured (1 GPU / --gpus {many}) | {n1} / {n2} (validated PASS: {passed(one)} / {passed(two)}; exit {rc1} / {rc2}) |")
print(f"| wall time, 1 GPU | {t1:.2f} s |")
print(f"| wall time, --gpus {many}{note} | {t2:.2f} s |")
print(f"| ratio (target <= 0.6) | {ratio:.2f} {verdict} |")
for label, n in sorted(per_gpu.items()):
    print(f"| points on {label} | {n} |")
if err1 or err2:
    print(f"| JSON problems | {err1 or ''} {err2 or ''} (see {out}/*.err) |")
EOF
