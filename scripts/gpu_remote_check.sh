#!/usr/bin/env bash
# The shared-GPU check (issue #19), on the GPU machine, from a build folder (tilelab-cli and
# tilelab-gpu-worker side by side). No sshd and no network needed: the worker is reached through
# a local launcher, --gpu-command "BUILD/tilelab-gpu-worker --stdio" (run by sh -c), which is the
# whole remote path but the network. Where /usr/sbin/sshd exists, one run also goes through a
# throw-away sshd on 127.0.0.1. Measures, then prints a short table last:
#   1. a full lesson run over the stdio launcher equals the local run: validation, counted
#      accesses, median time within 2%;
#   2. the added latency of a cached lesson change over the stdio path (per-run worker round
#      trip minus the worker's own stages, local vs stdio; target <= 15 ms);
#   3. 8 concurrent CLI clients through the GPU lock: each client's median kernel time within 3%
#      of a lone client's, and the queueing delay per run (gpu_wait_ms).
# Usage: scripts/gpu_remote_check.sh BUILD_DIR        (logs and JSON in $OUT, default /tmp/tilelab-remote-check)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/gpu_check_start.sh
. scripts/gpu_check_start.sh
gpu_check_start remote_check "$@"
stdio=(--gpu-command "$build/tilelab-gpu-worker --stdio")
lessons=${LESSONS:-"02 04 05 08"}
reps=${REPS:-30}

echo "== 1. full lesson runs, local vs stdio launcher (reps $reps)"
for l in $lessons; do
  "$cli" run "$l" --reps "$reps" --json > "$out/run_${l}_local.json" 2> "$out/run_${l}_local.err"
  "$cli" run "$l" --reps "$reps" --json "${stdio[@]}" > "$out/run_${l}_stdio.json" 2> "$out/run_${l}_stdio.err"
done

echo "== 2. cached lesson changes: a sweep in one process, local vs stdio"
for where in local stdio; do
  extra=(); [ "$where" = stdio ] && extra=("${stdio[@]}")
  "$cli" sweep 02 --param TILE --reps 3 --warmup 1 --no-count --no-reference --json "${extra[@]}" \
    > /dev/null 2>&1   # compiles (disk cache), so the measured pass below finds every kernel cached
  "$cli" sweep 02 --param TILE --reps 3 --warmup 1 --no-count --no-reference --json "${extra[@]}" \
    > "$out/sweep_$where.json" 2> "$out/sweep_$where.err"
done

echo "== 3. 8 concurrent clients through the GPU lock"
"$cli" run 04 --reps 50 --no-count --no-hardware --json "${stdio[@]}" > "$out/lone.json" 2> "$out/lone.err"
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$cli" run 04 --reps 50 --no-count --no-hardware --json "${stdio[@]}" > "$out/client_$i.json" 2> "$out/client_$i.err" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

sshd=${SSHD:-/usr/sbin/sshd}   # SSHD=/abs/path/sshd where the machine has none installed (ssh, ssh-keygen on PATH)
ssh_row="sshd: $sshd not installed, skipped"
if [ -x "$sshd" ]; then
  echo "== 4. lesson 04 and the cached-change sweep through a throw-away sshd on 127.0.0.1"
  d=$(mktemp -d); port=$((20000 + RANDOM % 20000))
  ssh-keygen -q -t ed25519 -N '' -f "$d/host" && ssh-keygen -q -t ed25519 -N '' -f "$d/key" && cp "$d/key.pub" "$d/auth"
  printf 'Port %s\nListenAddress 127.0.0.1\nHostKey %s/host\nAuthorizedKeysFile %s/auth\nStrictModes no\nUsePAM no\nPidFile %s/pid\nSetEnv LD_LIBRARY_PATH=%s\n' \
    "$port" "$d" "$d" "$d" "$LD_LIBRARY_PATH" > "$d/config"
  mkdir -p /run/sshd; "$sshd" -f "$d/config" -E "$d/log"; sleep 1
  ssh_cmd="ssh -F /dev/null -T -o BatchMode=yes -o UserKnownHostsFile=$d/kh -o StrictHostKeyChecking=no -p $port -i $d/key $(id -un)@127.0.0.1 $build/tilelab-gpu-worker --stdio"
  "$cli" run 04 --reps "$reps" --json --gpu-command "$ssh_cmd" > "$out/run_ssh.json" 2> "$out/run_ssh.err"
  ssh_row="sshd: run 04 exit $? ($(tail -1 "$out/run_ssh.err"))"
  "$cli" sweep 02 --param TILE --reps 3 --warmup 1 --no-count --no-reference --json --gpu-command "$ssh_cmd" \
    > "$out/sweep_ssh.json" 2> "$out/sweep_ssh.err"   # the kernels are in the disk cache from part 2
  kill "$(cat "$d/pid")" 2>/dev/null
fi

python3 - "$out" "$lessons" "$ssh_row" <<'PY'
import json, statistics, sys, os
out, lessons, ssh_row = sys.argv[1], sys.argv[2].split(), sys.argv[3]
def load(name):
    try:
        with open(os.path.join(out, name)) as f: return json.load(f)
    except Exception as e: return {"error": f"{name}: {e}"}
def points(j):
    if isinstance(j, list): return j
    for v in j.values():
        if isinstance(v, list) and v and isinstance(v[0], dict): return v
    return []
def overhead(p):
    s = p.get("stages", {})
    return s.get("worker_ms", 0) - sum(s.get(k, 0) for k in ("setup_ms", "validate_ms", "timing_ms", "count_ms", "reference_ms", "hardware_ms", "gpu_wait_ms"))
rows, ok = [], True
def same_run(label, local_name, other_name):
    """A row: the other path's run equals the local one (validation, counts, median within 2 %)."""
    a, b = load(local_name), load(other_name)
    ta, tb = a.get("median_ms"), b.get("median_ms")
    same = a.get("validation") == b.get("validation") or (a.get("validation") or {}).get("passed") == (b.get("validation") or {}).get("passed")
    counts = a.get("counted") == b.get("counted")
    dt = abs(tb - ta) / ta * 100 if ta and tb else float("nan")
    good = bool(same and counts and b.get("measured") and dt <= 2)
    rows.append((label, f"{ta} vs {tb} ms ({dt:.2f}%), validation {'same' if same else 'DIFFERS'}, counts {'same' if counts else 'DIFFER'}", "ok" if good else "FAIL"))
    return good
for l in lessons:
    ok &= same_run(f"lesson {l}: local vs stdio", f"run_{l}_local.json", f"run_{l}_stdio.json")
ov = {}
for w in ("local", "stdio"):
    ps = [p for p in points(load(f"sweep_{w}.json")) if p.get("stages", {}).get("worker_ms")]
    ov[w] = statistics.median([overhead(p) for p in ps]) if ps else float("nan")
added = ov["stdio"] - ov["local"]
rows.append(("cached change: round-trip overhead", f"local {ov['local']:.2f} ms, stdio {ov['stdio']:.2f} ms, added {added:.2f} ms (target <= 15)", "ok" if added <= 15 else "FAIL"))
if os.path.exists(os.path.join(out, "sweep_ssh.json")):
    ps = [p for p in points(load("sweep_ssh.json")) if p.get("stages", {}).get("worker_ms")]
    o = statistics.median([overhead(p) for p in ps]) if ps else float("nan")
    good = o - ov["local"] <= 15
    ok &= good
    rows.append(("cached change over ssh 127.0.0.1", f"ssh {o:.2f} ms, added {o - ov['local']:.2f} ms over local ({len(ps)} points; target <= 15)", "ok" if good else "FAIL"))
    ok &= same_run("lesson 04: local vs ssh 127.0.0.1", "run_04_local.json", "run_ssh.json")
lone = load("lone.json").get("median_ms")
clients = [load(f"client_{i}.json") for i in range(1, 9)]
meds = [c.get("median_ms") for c in clients]
waits = [c.get("stages", {}).get("gpu_wait_ms", 0) for c in clients]
worst = max(abs(m - lone) / lone * 100 for m in meds if m) if lone and all(meds) else float("nan")
rows.append(("8 clients through the lock", f"lone {lone} ms; clients {min(m for m in meds if m) if any(meds) else '-'}..{max(m for m in meds if m) if any(meds) else '-'} ms, worst {worst:.2f}% (<= 3)", "ok" if worst <= 3 else "FAIL"))
rows.append(("queueing delay per run", f"gpu_wait_ms median {statistics.median(waits):.1f}, max {max(waits):.1f}", "info"))
rows.append((ssh_row, "", "info"))
print("\n| check | measured | verdict |\n| --- | --- | --- |")
for r in rows: print(f"| {r[0]} | {r[1]} | {r[2]} |")
sys.exit(0 if ok else 1)
PY
