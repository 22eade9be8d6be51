# shellcheck shell=bash
# Sourced by the gpu_sanitize_*.sh scripts: how each of them starts.
# sanitize_start NAME CARRY OUT: carry and out from the arguments (out made, summary.txt in it
# emptied), the CUDA libraries on the library path, sanitizer and cli to run, failed=0.
sanitize_start() {
    local name=$1
    carry=${2:?usage: gpu_sanitize_$name.sh CARRY OUT}
    out=${3:?usage: gpu_sanitize_$name.sh CARRY OUT}
    mkdir -p "$out"
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
    sanitizer=/usr/local/cuda/bin/compute-sanitizer
    cli="$carry/tilelab-cli"
    failed=0
    summary="$out/summary.txt"
    : > "$summary"
}

# sanitize_lesson TOOL LESSON SIZE NAME=VALUE...: one checked, counted run of a lesson's kernel under
# compute-sanitizer (no timing to speak of, no counters); its line in the summary, failed=1 when the
# tool found something. An argument that starts with -- goes to the run as it is (--source=FILE:
# a candidate kernel, named in the summary by its file name). SANITIZE_TIMEOUT=S bounds each run.
sanitize_lesson() {
    local tool=$1 lesson=$2 size=$3; shift 3
    local sets=() name="$tool-$lesson-$size"
    for s in "$@"; do
        case $s in --*) sets+=("$s"); name+="-${s##*/}" ;; *) sets+=(--set "$s"); name+="-$s" ;; esac
    done
    ${SANITIZE_TIMEOUT:+timeout "$SANITIZE_TIMEOUT"} "$sanitizer" --tool "$tool" --target-processes all --error-exitcode 9 \
        "$cli" run "$lesson" --size "$size" "${sets[@]}" --reps 1 --warmup 0 --no-reference --no-hardware \
        >>"$out/sanitizer.log" 2>&1
    local rc=$?
    echo "$name: rc=$rc" | tee -a "$summary"
    [ $rc -eq 0 ] || failed=1
}

# sanitize_gpu_tests FILTER LABEL: the GPU tests matching FILTER (gtest), their line and last three
# lines in the summary, failed=1 when they failed.
sanitize_gpu_tests() {
    "$carry/tests/tilelab_tests" --gtest_filter="$1" >"$out/gpu_tests.log" 2>&1
    local rc=$?
    echo "gpu tests ($2): rc=$rc" | tee -a "$summary"
    tail -3 "$out/gpu_tests.log" >>"$summary"
    [ $rc -eq 0 ] || failed=1
}

# sanitize_finish: the GPU, driver and time in the summary, the verdict last; exits with it.
sanitize_finish() {
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$summary" 2>&1
    date -u +"%Y-%m-%d %H:%M UTC" >>"$summary"
    echo "failed=$failed" | tee -a "$summary"
    exit $failed
}
