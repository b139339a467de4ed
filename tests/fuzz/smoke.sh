#!/usr/bin/env bash
# fuzz.smoke: fuzzes each target for a while, each from a scratch corpus
# seeded from the repository.
#
#   smoke.sh WORK NAME FUZZER SEED_LIST [NAME FUZZER SEED_LIST ...]
#
# NAME `frontend` runs FUZZ_SECONDS (default 60), the others
# FUZZ_RUNTIME_SECONDS (default 10) each. SEED_LIST names one seed file a
# line. Stops at the first crash, naming the input that caused it.
set -eu
work=$1
shift
rm -rf "$work"
while [ $# -ge 3 ]; do
    name=$1 fuzzer=$2 seeds=$3
    shift 3
    corpus="$work/$name-corpus"
    artifacts="$work/$name-artifacts"
    mkdir -p "$corpus" "$artifacts"
    n=0
    while IFS= read -r f; do
        [ -n "$f" ] || continue
        n=$((n + 1))
        cp "$f" "$corpus/seed-$n-$(basename "$f")"
    done <"$seeds"
    if [ "$name" = frontend ]; then
        seconds=${FUZZ_SECONDS:-60}
        max_len=4096
    else
        seconds=${FUZZ_RUNTIME_SECONDS:-10}
        max_len=16384
    fi
    # The report's warnings about unreadable metrics lines: not in the log.
    quiet=0
    [ "$name" != report ] || quiet=2
    echo "== $name: ${seconds}s from $(find "$corpus" -type f | wc -l) seeds"
    if ! "$fuzzer" "$corpus" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -close_fd_mask="$quiet" -print_final_stats=1 -artifact_prefix="$artifacts/"; then
        echo "fuzz.smoke: $name found a crash; reproduce with: $fuzzer $artifacts/<crash-file>" >&2
        exit 1
    fi
done
