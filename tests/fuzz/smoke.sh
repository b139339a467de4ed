#!/usr/bin/env bash
# fuzz.smoke: seeds a scratch corpus and fuzzes for FUZZ_SECONDS (default 60).
set -eu
fuzzer=$1
work=$2
shift 2
rm -rf "$work"
mkdir -p "$work"
for f in "$@"; do cp "$f" "$work/$(basename "$(dirname "$f")")_$(basename "$f")"; done
exec "$fuzzer" "$work" -max_total_time="${FUZZ_SECONDS:-60}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1
