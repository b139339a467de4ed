#!/usr/bin/env bash
# Compile-time benchmark: pipec on a 10,000-step pipeline, as a ratio
# against `gcc -fsyntax-only` on a C file of similar size, in the same run.
#   bash bench/compile.sh [N_STEPS] [PIPEC]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-10000}
pipec=${2:-$root/build/compiler/pipec}
[ -x "$pipec" ] || { echo "build pipec first (bash scripts/demo.sh or cmake --build build)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/bench/gen_pipeline.py" "$n" "$work"

best() { python3 "$root/bench/best_of.py" -- "$@"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }

pipe_bytes=$(wc -c < "$work/bench.pipe")
c_bytes=$(wc -c < "$work/baseline.c")
"$pipec" check "$work/bench.pipe" || { echo "the generated pipeline does not check clean"; exit 1; }
t_gcc=$(best gcc -std=c11 -fsyntax-only "$work/baseline.c")
t_check=$(best "$pipec" check "$work/bench.pipe")
echo "pipeline: $n steps, $((n + 1)) invocations, $pipe_bytes bytes; baseline C file: $c_bytes bytes"
printf '%-34s %8s s\n' "gcc -fsyntax-only (baseline)" "$t_gcc"
printf '%-34s %8s s   ratio %sx\n' "pipec check" "$t_check" "$(ratio "$t_check" "$t_gcc")"
if "$pipec" --help | grep -q '^  build'; then
    t_build=$(best "$pipec" build "$work/bench.pipe" -o "$work/out" --target all)
    printf '%-34s %8s s   ratio %sx\n' "pipec build --target all" "$t_build" "$(ratio "$t_build" "$t_gcc")"
fi
