#!/usr/bin/env bash
# Compile-time benchmark on an N-step pipeline (default 10,000), in one run,
# for two shapes of the same pipeline (bench/gen_pipeline.py): `files`, one
# source file per step (10,001 files to read, digest and copy), and
# `shared`, one source file defining every step's entry:
#   - `gcc -std=c11 -fsyntax-only` of a C file of the same shape (the baseline),
#   - `pipec check`, `pipec build --target local` (into a fresh folder; goal:
#     at most 0.5x the baseline) and again with nothing changed, and
#     `pipec build --target all` (informational),
#   - `gcc -O2 -c` of the generated driver (src/NAME_main.c; goal: at most
#     5 s of CPU) and the size of the generated C.
# Times are the best of R runs (wall) and the CPU (user + system) of that
# run; ratios are against the baseline's, wall and CPU.
#   bash bench/compile.sh [N_STEPS] [PIPEC]       (R=5 by default: R=3 bash ...)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-10000}
pipec=${2:-$root/build/compiler/pipec}
runs=${R:-5}
[ -x "$pipec" ] || { echo "build pipec first (bash scripts/demo.sh or cmake --build build)"; exit 2; }
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT

# measure RUNS CMD...: "WALL CPU" of the fastest run (seconds); fails when
# a run fails, so that a broken command cannot pass for a fast one.
measure() { local runs=$1; shift; python3 "$root/bench/best_of.py" -r "$runs" --cpu -- "$@"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9):.2f}')" "$1" "$2"; }
row() { # LABEL "WALL CPU" [BASELINE]
    local wall=${2% *} cpu=${2#* }
    if [ -n "${3:-}" ]; then
        printf '%-40s %8s s wall %8s s cpu   ratio %sx wall, %sx cpu\n' "$1" "$wall" "$cpu" \
            "$(ratio "$wall" "${3% *}")" "$(ratio "$cpu" "${3#* }")"
    else
        printf '%-40s %8s s wall %8s s cpu\n' "$1" "$wall" "$cpu"
    fi
}

# bench_shape SHAPE: the table for one shape, in $top/SHAPE.
bench_shape() {
    local shape=$1 work=$top/$1 base fresh all
    python3 "$root/bench/gen_pipeline.py" "$n" "$work" "$shape"
    "$pipec" check "$work/bench.pipe" >/dev/null || { echo "the generated pipeline does not check clean"; exit 1; }
    echo
    echo "shape $shape: $n steps, $((n + 1)) invocations, $(wc -c <"$work/bench.pipe") bytes of .pipe," \
        "$(find "$work/src" -type f | wc -l) source file(s); baseline C file: $(wc -c <"$work/baseline.c") bytes"
    base=$(measure "$runs" gcc -std=c11 -fsyntax-only "$work/baseline.c")
    row "gcc -std=c11 -fsyntax-only (baseline)" "$base"
    row "pipec check" "$(measure "$runs" "$pipec" check "$work/bench.pipe")" "$base"
    # A fresh folder for every run: the first build of a bundle writes every file.
    fresh="d=\$(mktemp -d -p '$work' fresh.XXXXXX) && exec '$pipec' build '$work/bench.pipe' -o \"\$d\" --target local"
    row "pipec build --target local" "$(measure "$runs" sh -c "$fresh")" "$base"
    "$pipec" build "$work/bench.pipe" -o "$work/local" --target local >/dev/null
    row "  again, nothing changed" "$(measure "$runs" "$pipec" build "$work/bench.pipe" -o "$work/local" --target local)" "$base"
    all="d=\$(mktemp -d -p '$work' all.XXXXXX) && exec '$pipec' build '$work/bench.pipe' -o \"\$d\" --target all"
    row "pipec build --target all (informational)" "$(measure "$runs" sh -c "$all")" "$base"
    rm -rf "$work"/fresh.* "$work"/all.*
}
bench_shape files
bench_shape shared

# The generated driver (the same for both shapes), compiled as the bundle's
# CMakeLists compiles it.
echo
work=$top/files
bundle=$work/local
driver=$(ls "$bundle"/src/*_main.c)
header=${driver%_main.c}.h
c_bytes=$(cat "$driver" "$header" | wc -c)
row "gcc -O2 -c of the generated driver" "$(measure 1 gcc -std=c11 -O2 -fdata-sections -c "$driver" -o "$work/driver.o" \
    -I"$bundle/src" -I"$bundle/runtime/include" -I"$bundle/runtime/base/include")"
echo "generated C: $c_bytes bytes ($(basename "$driver") $(wc -c <"$driver"), $(basename "$header") $(wc -c <"$header"))"
