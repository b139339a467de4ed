#!/usr/bin/env bash
# Language-server latency on an N-step pipeline (default 10,000, made by
# bench/gen_pipeline.py), in one run:
#   - `pipec check` of the file (the baseline: a whole check from disk,
#     best of R runs, wall),
#   - `pipec lsp`: from writing a one-character didChange in the middle of
#     the pipeline (alternately adding an unknown name and taking it away) to
#     reading the publishDiagnostics of that version; K changes, best and
#     median (bench/lsp_latency.py). Goal: at most 0.2 s.
# Prints each time and its ratio against the baseline's.
#   bash bench/lsp_latency.sh [N_STEPS] [PIPEC]       (R=5, K=10 by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-10000}
pipec=${2:-$root/build/compiler/pipec}
runs=${R:-5}
changes=${K:-10}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / max(float(sys.argv[2]), 1e-9):.2f}')" "$1" "$2"; }

python3 "$root/bench/gen_pipeline.py" "$n" "$work" shared
"$pipec" check "$work/bench.pipe" >/dev/null || { echo "the generated pipeline does not check clean" >&2; exit 1; }
echo "$n steps, $((n + 1)) invocations, $(wc -l <"$work/bench.pipe") lines, $(wc -c <"$work/bench.pipe") bytes of .pipe"
base=$(python3 "$root/bench/best_of.py" -r "$runs" -- "$pipec" check "$work/bench.pipe")
printf '%-44s %8s s\n' "pipec check (baseline, best of $runs)" "$base"
read -r best median < <(python3 "$root/bench/lsp_latency.py" "$pipec" "$work/bench.pipe" "$changes")
printf '%-44s %8s s   ratio %sx\n' "pipec lsp: didChange -> diagnostics, best" "$best" "$(ratio "$best" "$base")"
printf '%-44s %8s s   ratio %sx   (goal: 0.2 s: %s)\n' "  median of $changes changes" "$median" \
    "$(ratio "$median" "$base")" "$(python3 -c "import sys; print('met' if float(sys.argv[1]) <= 0.2 else 'MISSED')" "$median")"
