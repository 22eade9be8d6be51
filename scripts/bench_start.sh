# shellcheck shell=bash
# Sourced by the bench_*.sh scripts that drive tilelab-cli: how each of them starts.
# bench_start NAME [CLI]: CLI is the argument, else $TILELAB_CLI, else build/tilelab-cli; OUT is
# $OUT, else a fresh temporary folder tilelab-bench-NAME.XXXXXX. Stops (exit 2) when there is no
# tilelab-cli to run. Run from the repository root.
bench_start() {
    local name=$1
    CLI="${2:-${TILELAB_CLI:-build/tilelab-cli}}"
    OUT="${OUT:-$(mktemp -d -t "tilelab-bench-$name.XXXXXX")}"
    mkdir -p "$OUT"
    if [[ ! -x "$CLI" ]]; then
        echo "$(basename "$0" .sh): no tilelab-cli at $CLI (build it first or pass its path)" >&2
        exit 2
    fi
}
