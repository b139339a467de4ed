#!/usr/bin/env bash
# `report` of an invocation with many metric names: its time at 20,000 and
# at 200,000 names (two rows each), against `sort` of the same metrics.csv
# (the baseline: n log n over the same bytes), in the same run. Reading is
# linear when ten times the names take about ten times as long (a name
# looked up by a linear search made it a hundred: over 20 s at 200,000).
#   bash bench/report_names.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
driver=$build/tests/report/report_driver
if [ ! -x "$driver" ]; then
    echo "build the tests first (cmake --build $build)"
    exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export PIPE_LOCAL_CPUS=4 PIPE_LOCAL_MEMORY=8GB
unset PIPE_STORE PIPE_LOCAL_GPUS CUDA_VISIBLE_DEVICES REPORT_SHAPE REPORT_INVOCATIONS
"$driver" run --store s --run-id R --param work_ms=0 --param epochs=3 >run.out 2>&1
now() { date +%s.%N; }
declare -A took base
for n in 20000 200000; do
    awk -v n="$n" 'BEGIN { print "name,step,value,time_s"; for (i = 0; i < n; i++) printf "m%d,0,1,0.1\nm%d,1,2,0.2\n", i, i }' \
        >s/R/train/metrics.csv
    t0=$(now)
    "$driver" report R --store s -o "names-$n.html" >/dev/null 2>&1
    t1=$(now)
    sort s/R/train/metrics.csv >/dev/null
    t2=$(now)
    took[$n]=$(echo "$t1 - $t0" | bc -l)
    base[$n]=$(echo "$t2 - $t1" | bc -l)
    printf '%7d names: report %.3f s, sort %.3f s, ratio %.1fx\n' "$n" "${took[$n]}" "${base[$n]}" \
        "$(echo "${took[$n]} / ${base[$n]}" | bc -l)"
done
printf 'report 200,000 / 20,000 names: %.1fx (linear: about 10x; sort: %.1fx)\n' \
    "$(echo "${took[200000]} / ${took[20000]}" | bc -l)" "$(echo "${base[200000]} / ${base[20000]}" | bc -l)"
