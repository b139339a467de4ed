#!/usr/bin/env bash
# `report` on hostile metric data (docs/report.md, "Hostile data"): each
# case replaces the metrics.csv (or the profile CSVs, or step.yaml) of one
# invocation of a real run and renders the report under a time limit and,
# unless the build is sanitized, a memory limit (ulimit -v):
#   - steps past 2^53 and two points at INT64_MAX (once an endless tick
#     loop that ate 24 GB) finish at once;
#   - values of +-1e308 draw a line, 1e-320 too;
#   - a row whose step is past INT64_MAX is skipped with a warning naming
#     the file and the line, and the rest is drawn;
#   - a step given twice keeps both points;
#   - 200,000 metric names draw 500 charts and say how many more there are;
#   - GPU and process samples at times of 1e308 or 2^53 finish at once;
#   - a step.yaml whose duration is 1e308 s finishes at once.
#
#   report_hostile.sh DRIVER WORKDIR LIMIT_KB   (LIMIT_KB 0: no ulimit -v)
set -u
D=$1
W=$2
limit_kb=$3
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
export PIPE_LOCAL_CPUS=4 PIPE_LOCAL_MEMORY=8GB
unset PIPE_STORE PIPE_LOCAL_GPUS CUDA_VISIBLE_DEVICES REPORT_SHAPE REPORT_INVOCATIONS

fails=0
case_name=
begin() { case_name=$1; }
fail() {
    echo "FAIL: $case_name: $1"
    fails=$((fails + 1))
    if [ $# -gt 1 ] && [ -f "$2" ]; then head -c 2000 "$2" | sed 's/^/    | /'; fi
}
ok() { echo "ok: $case_name"; }
now_ms() { date +%s%3N; }

"$D" run --store s --run-id R --param work_ms=0 --param epochs=3 >run.out 2>&1 || { fail "the run failed" run.out; exit 1; }
inv=s/R/train
header=name,step,value,time_s

# report NAME: renders the report of R into NAME.html (stderr NAME.err)
# under the memory limit; fails the case unless it exits 0. The 120 s
# limit tells an endless loop (the bug these cases once found) from a slow
# machine or a sanitized build; speed itself is bench/report_names.sh's.
report() {
    local start status elapsed
    start=$(now_ms)
    (
        if [ "$limit_kb" != 0 ]; then ulimit -v "$limit_kb"; fi
        exec timeout 120 "$D" report R --store s -o "$1.html"
    ) >"$1.out" 2>"$1.err"
    status=$?
    elapsed=$(($(now_ms) - start))
    if [ "$status" != 0 ]; then
        fail "report exited $status after $elapsed ms" "$1.err"
        return 1
    fi
    return 0
}

# chart PAGE METRIC: "POINTS DISTINCT_Y" of the metric's line (0 0: none drawn).
chart() {
    python3 - "$1" "$2" <<'EOF'
import re, sys
page, name = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
for fig in re.findall(r"<figure>.*?</figure>", page, re.S):
    if not re.search(r"<b>%s</b>" % re.escape(name), fig):
        continue
    d = re.search(r'class="line"[^>]*d="([^"]*)"', fig)
    pts = re.findall(r"[ML]([-0-9.]+) ([-0-9.]+)", d.group(1)) if d else []
    print(len(pts), len({y for _, y in pts}))
    break
else:
    print(0, 0)
EOF
}

# drawn NAME METRIC WANT: the report NAME draws METRIC as WANT ("POINTS DISTINCT_Y").
drawn() {
    report "$1" || return 1
    local got
    got=$(chart "$1.html" "$2")
    if [ "$got" != "$3" ]; then
        fail "$2: $got points and distinct values drawn, not $3" "$1.err"
        return 1
    fi
    return 0
}

begin "steps past 2^53 (9007199254740993, 9007199254740994): bounded, drawn"
printf '%s\nbig,9007199254740993,1,0.1\nbig,9007199254740994,2,0.2\n' $header >$inv/metrics.csv
drawn big big "2 2" && ok

begin "two points at INT64_MAX: bounded, drawn"
printf '%s\nmax,9223372036854775807,1,0.1\nmax,9223372036854775807,2,0.2\n' $header >$inv/metrics.csv
drawn max max "2 2" && ok

begin "values of +-1e308 draw a line"
printf '%s\nhuge,0,1e308,0.1\nhuge,1,-1e308,0.2\nhuge,2,1.7976931348623157e308,0.3\n' $header >$inv/metrics.csv
drawn huge huge "3 3" && ok

begin "subnormal values (1e-320) draw a line"
printf '%s\ntiny,0,1e-320,0.1\ntiny,1,2e-320,0.2\ntiny,2,3e-320,0.3\n' $header >$inv/metrics.csv
drawn tiny tiny "3 3" && ok

begin "a step past INT64_MAX: that line skipped with a warning naming it, the rest drawn"
printf '%s\nloss,0,1,0.1\nloss,99999999999999999999999,5,0.2\nloss,1,2,0.3\n' $header >$inv/metrics.csv
if drawn skip loss "2 2"; then
    if grep -q "warning: s/R/train/metrics.csv line 3 skipped (the step is not a whole number from 0 to 9223372036854775807)" skip.err; then
        ok
    else
        fail "no warning naming s/R/train/metrics.csv line 3" skip.err
    fi
fi

begin "a step given twice keeps both points"
printf '%s\ntwice,0,1,0.1\ntwice,1,2,0.2\ntwice,1,3,0.3\ntwice,2,4,0.4\n' $header >$inv/metrics.csv
if drawn twice twice "4 4"; then
    if grep -q '4 values, steps 0' twice.html; then ok; else fail "the caption does not say 4 values" twice.html; fi
fi

begin "200,000 metric names: at most 500 charts drawn"
awk -v h=$header 'BEGIN { print h; for (i = 0; i < 200000; i++) printf "m%d,0,1,0.1\nm%d,1,2,0.2\n", i, i }' >$inv/metrics.csv
if report names; then
    size=$(wc -c <names.html)
    if grep -q '199500 more metrics not drawn (at most 500 charts an invocation)' names.html && [ "$size" -lt 20000000 ]; then
        ok
    else
        fail "not capped ($size bytes)"
    fi
fi

begin "GPU and process samples at times of 1e308 and 2^53: bounded"
printf '%s\nloss,0,1,0.1\nloss,1,2,0.2\n' $header >$inv/metrics.csv
gpu_header=$(head -1 $inv/profile/gpu.csv)
{
    echo "$gpu_header"
    echo '1e308,0,GPU A,1e308,1e-320,1e308,1e308,-1e308,1'
    echo '9007199254740993,0,GPU A,50,100,200,300,40,1'
    echo '9007199254740994,0,GPU A,60,100,200,300,40,1'
} >$inv/profile/gpu.csv
{
    echo 'time_s,cpu_pct,rss_mib'
    echo '9223372036854775807,1e308,1e308'
    echo '9223372036854775807,-1e308,1e-320'
    echo '0,5,5'
} >$inv/profile/process.csv
if report profile; then
    if grep -q 'GPU A' profile.html; then ok; else fail "GPU A not shown" profile.html; fi
fi

begin "a step.yaml with a duration of 1e308 s: bounded"
sed -i 's/^duration_s: .*/duration_s: 1e308/' $inv/step.yaml
if report duration; then ok; fi

[ "$fails" = 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" = 0 ]
