#!/bin/sh
# End-to-end test of `run` (and `describe`, `runs`, `show`) through
# fake_driver, a hand-written stand-in for a generated bundle executable.
#
#   run_e2e.sh DRIVER WORKDIR
#
# WORKDIR is emptied first; every case prints ok/FAIL with the output of a
# failed case; the exit status is 1 when a case failed.
set -u
D=$1
W=$2
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1

# A known machine: concurrency must not depend on where the test runs.
PIPE_LOCAL_CPUS=4
PIPE_LOCAL_MEMORY=8GB
PIPE_LOCAL_GPUS=1
export PIPE_LOCAL_CPUS PIPE_LOCAL_MEMORY PIPE_LOCAL_GPUS
unset PIPE_STORE CUDA_VISIBLE_DEVICES OMP_NUM_THREADS PIPE_PROGRESS_INTERVAL FAKE_BREAK

fails=0
case_name=

begin() { case_name=$1; }
fail() {
    echo "FAIL: $case_name: $1"
    fails=$((fails + 1))
    if [ $# -gt 1 ] && [ -f "$2" ]; then sed 's/^/    | /' "$2"; fi
}
ok() { echo "ok: $case_name"; }

# expect_exit EXPECTED ACTUAL OUTFILE
expect_exit() {
    if [ "$2" -ne "$1" ]; then fail "exit status $2, expected $1" "$3"; return 1; fi
    return 0
}
# has FILE TEXT (fixed string)
has() {
    if ! grep -F -q -- "$2" "$1"; then fail "missing \`$2\`" "$1"; return 1; fi
    return 0
}
hasnt() {
    if grep -F -q -- "$2" "$1"; then fail "unexpected \`$2\`" "$1"; return 1; fi
    return 0
}
# entries DIR: how many entries DIR holds, hidden ones left out (as `ls DIR | wc -l`)
entries() { find "$1" -mindepth 1 -maxdepth 1 -name '[!.]*' | wc -l; }
run_id_of() { sed -n 's/^pipeline fake: run \([^,]*\),.*/\1/p' "$1" | head -n 1; }
# field STEP_YAML KEY: a top-level scalar, quotes removed
field() { sed -n "s/^$2: *//p" "$1" | tr -d '"' | head -n 1; }
# overlap RUN: left and right ran at the same time (from their step records)
overlap() {
    ls_=$(field ".pipe/$1/left/step.yaml" started)
    lf_=$(field ".pipe/$1/left/step.yaml" finished)
    rs_=$(field ".pipe/$1/right/step.yaml" started)
    rf_=$(field ".pipe/$1/right/step.yaml" finished)
    awk -v ls="x$ls_" -v lf="x$lf_" -v rs="x$rs_" -v rf="x$rf_" 'BEGIN { exit !(ls < rf && rs < lf) }'
}

# ---- a first run succeeds, with progress lines and a summary ----
begin "run succeeds"
"$D" run --param sleep_ms=400 >r1.out 2>&1
st=$?
RUN1=$(run_id_of r1.out)
if expect_exit 0 $st r1.out &&
    has r1.out "  produce  queued" && has r1.out "  join     queued" &&
    has r1.out "  left     running" && has r1.out "  left     done (" &&
    has r1.out "[produce] " && has r1.out "greeting=hello from the manifest" && has r1.out "omp=1 gpus=[]" &&
    has r1.out "omp=2 gpus=[0]" &&
    has r1.out "summary: 4 invocations: 4 done in" &&
    has r1.out "  join: loss=0.5 accuracy=0.9712" && has r1.out "  left: sum=55" && has r1.out "  produce: count=10" &&
    has r1.out "run $RUN1 succeeded (exit 0)"; then
    if [ -z "$RUN1" ] || [ ! -f ".pipe/$RUN1/run.yaml" ]; then
        fail "no run.yaml for run '$RUN1'" r1.out
    elif [ "$(field ".pipe/$RUN1/run.yaml" status)" != "done" ]; then
        fail "run.yaml status is not done" ".pipe/$RUN1/run.yaml"
    else
        ok
    fi
fi

begin "independent invocations overlap by default"
if [ -n "$RUN1" ] && overlap "$RUN1"; then ok; else fail "left and right did not overlap" ".pipe/$RUN1/left/step.yaml"; fi

# ---- a second run is all cached ----
begin "second run is cached"
"$D" run --param sleep_ms=400 >r2.out 2>&1
st=$?
if expect_exit 0 $st r2.out && has r2.out "  produce  cached (from $RUN1/produce)" &&
    has r2.out "  left     cached" && has r2.out "  right    cached" && has r2.out "  join     cached" &&
    has r2.out "summary: 4 invocations: 4 cached in" && has r2.out "  join: loss=0.5 accuracy=0.9712" &&
    hasnt r2.out "running"; then
    ok
fi

# ---- outputs are stamped; --verify hashes them again ----
begin "a file with its recorded size and time is trusted; --verify hashes it"
N1=".pipe/$RUN1/produce/outputs/numbers"
if ! grep -q "size: " ".pipe/$RUN1/produce/step.yaml" || ! grep -q "mtime_ns: " ".pipe/$RUN1/produce/step.yaml"; then
    fail "no size or mtime_ns in step.yaml" ".pipe/$RUN1/produce/step.yaml"
else
    # Other bytes behind the same size and modification time (in place:
    # the cached runs' links see them too).
    touch -r "$N1" stamp.ref
    printf 9 | dd of="$N1" bs=1 count=1 conv=notrunc 2>/dev/null
    touch -r stamp.ref "$N1"
    "$D" run --param sleep_ms=10 >v1.out 2>&1
    st=$?
    if expect_exit 0 $st v1.out && has v1.out "  produce  cached"; then
        "$D" run --param sleep_ms=10 --verify >v2.out 2>&1
        st=$?
        RUNV=$(run_id_of v2.out)
        if expect_exit 0 $st v2.out && has v2.out "  produce  done" && hasnt v2.out "  produce  cached" &&
            has ".pipe/$RUNV/produce/log" "changed since it was recorded"; then
            ok
        fi
    fi
fi

begin "--no-cache reruns"
"$D" run --param sleep_ms=400 --no-cache >r3.out 2>&1
st=$?
if expect_exit 0 $st r3.out && has r3.out "4 done" && hasnt r3.out "cached"; then ok; fi

begin "--jobs 1 runs one at a time"
"$D" run --param sleep_ms=300 --no-cache --jobs 1 >r4.out 2>&1
st=$?
RUN4=$(run_id_of r4.out)
if expect_exit 0 $st r4.out; then
    if overlap "$RUN4"; then fail "left and right overlapped under --jobs 1" r4.out; else ok; fi
fi

# ---- failures ----
begin "a failing step fails the run and skips its dependants"
"$D" run --param fail=true --param sleep_ms=50 >f1.out 2>&1
st=$?
RUNF=$(run_id_of f1.out)
if expect_exit 1 $st f1.out &&
    has f1.out "  left     failed (exit 3)" && hasnt f1.out "failed (exit 3) —" &&
    has f1.out "left failed: exited with status 3: asked to fail (fail=true)" &&
    has f1.out "  log: .pipe/$RUNF/left/log" &&
    has f1.out "  join     skipped: needs left, which failed" &&
    has f1.out "  right    done (" &&
    has f1.out "1 failed, 1 skipped" && has f1.out "run $RUNF failed (exit 1)"; then
    if [ "$(field ".pipe/$RUNF/run.yaml" status)" != failed ]; then
        fail "run.yaml status is not failed" ".pipe/$RUNF/run.yaml"
    elif [ -e ".pipe/$RUNF/left/outputs" ]; then
        fail "the failed invocation kept an outputs/ folder" f1.out
    elif [ "$(grep -c -F "asked to fail (fail=true)" f1.out)" != 3 ]; then
        fail "the cause is not printed once (its own line, the summary's cause, its tail)" f1.out
    else
        ok
    fi
fi

begin "unknown --param"
"$D" run --param nope=1 >u1.out 2>&1
st=$?
if expect_exit 2 $st u1.out && has u1.out "nope" && has u1.out "sleep_ms"; then ok; fi

begin "a misspelt --param gets a suggestion"
"$D" run --param sleep=1 >u9.out 2>&1
st=$?
if expect_exit 2 $st u9.out && has u9.out "unknown parameter \`sleep\`; did you mean \`sleep_ms\`?"; then ok; fi

begin "a --param given twice is an error"
before=$(entries .pipe)
"$D" run --param n=3 --param sleep_ms=10 --param n=4 >u10.out 2>&1
st=$?
after=$(entries .pipe)
if expect_exit 2 $st u10.out && has u10.out "parameter \`n\` is given twice (\`n=3\`, then \`n=4\`)"; then
    if [ "$before" != "$after" ]; then fail "a run was created" u10.out; else ok; fi
fi

begin "an out-of-range --param is an error, not 0"
"$D" run --param scale=1e-400 >u11.out 2>&1
st=$?
"$D" run --param n=99999999999999999999 >u12.out 2>&1
st2=$?
if expect_exit 2 $st u11.out && expect_exit 2 $st2 u12.out && has u11.out "\`scale\`: \`1e-400\` is out of range" &&
    has u12.out "\`n\`: \`99999999999999999999\` is out of range"; then
    ok
fi

begin "bad int value"
"$D" run --param n=ten >u2.out 2>&1
st=$?
if expect_exit 2 $st u2.out && has u2.out "\`n\`" && has u2.out "ten" && has u2.out "int"; then ok; fi

begin "bad bool value"
"$D" run --param fail=maybe >u3.out 2>&1
st=$?
if expect_exit 2 $st u3.out && has u3.out "\`fail\`"; then ok; fi

begin "--param without ="
"$D" run --param n >u4.out 2>&1
st=$?
if expect_exit 2 $st u4.out && has u4.out "NAME=VALUE"; then ok; fi

begin "unknown option"
"$D" run --frobnicate >u5.out 2>&1
st=$?
if expect_exit 2 $st u5.out && has u5.out "--frobnicate"; then ok; fi

begin "bad --jobs"
"$D" run --jobs 0 >u6.out 2>&1
st=$?
if expect_exit 2 $st u6.out && has u6.out "--jobs"; then ok; fi

begin "unknown command"
"$D" frobnicate >u7.out 2>&1
st=$?
if expect_exit 2 $st u7.out && has u7.out "unknown command \`frobnicate\`" && has u7.out "usage:"; then ok; fi

begin "no command"
"$D" >u8.out 2>&1
st=$?
if expect_exit 2 $st u8.out && has u8.out "usage:"; then ok; fi

begin "--help"
"$D" --help >h1.out 2>&1
st=$?
"$D" run --help >h2.out 2>&1
st2=$?
if expect_exit 0 $st h1.out && expect_exit 0 $st2 h2.out && has h1.out "usage:" && has h1.out "pipeline fake" &&
    has h2.out "--strict-resources"; then
    ok
fi

# ---- --config ----
begin "--config sets params and options"
cat >cfg.yaml <<'EOF'
# a run configuration
params:
  n: 20
  scale: 2
jobs: 1
no_cache: true
EOF
"$D" run --config cfg.yaml >c1.out 2>&1
st=$?
RUNC=$(run_id_of c1.out)
if expect_exit 0 $st c1.out && has c1.out "  produce: count=20" && has c1.out "  right: sum=420" &&
    has c1.out "4 done" && has ".pipe/$RUNC/run.yaml" "n: \"20\""; then
    if overlap "$RUNC"; then fail "jobs: 1 in the config was not applied" c1.out; else ok; fi
fi

begin "--param overrides --config"
"$D" run --config cfg.yaml --param n=5 >c2.out 2>&1
st=$?
if expect_exit 0 $st c2.out && has c2.out "  produce: count=5"; then ok; fi

begin "config: unknown key"
printf 'params: {n: 3}\njbos: 2\n' >bad1.yaml
"$D" run --config bad1.yaml >c3.out 2>&1
st=$?
if expect_exit 2 $st c3.out && has c3.out "bad1.yaml: line 2" && has c3.out "jbos"; then ok; fi

begin "config: bad parameter value"
printf 'params:\n  n: 3\n  scale: fast\n' >bad2.yaml
"$D" run --config bad2.yaml >c4.out 2>&1
st=$?
if expect_exit 2 $st c4.out && has c4.out "bad2.yaml: line 3" && has c4.out "\`scale\`"; then ok; fi

begin "config: unknown parameter"
printf 'params:\n  epochs: 3\n' >bad3.yaml
"$D" run --config bad3.yaml >c5.out 2>&1
st=$?
if expect_exit 2 $st c5.out && has c5.out "epochs"; then ok; fi

begin "config: missing file"
"$D" run --config does-not-exist.yaml >c6.out 2>&1
st=$?
if expect_exit 2 $st c6.out && has c6.out "does-not-exist.yaml"; then ok; fi

begin "config: not YAML"
printf 'params: [\n' >bad4.yaml
"$D" run --config bad4.yaml >c7.out 2>&1
st=$?
if expect_exit 2 $st c7.out && has c7.out "bad4.yaml"; then ok; fi

# ---- resources ----
begin "--strict-resources refuses a request larger than the machine"
before=$(entries .pipe)
PIPE_LOCAL_CPUS=1 "$D" run --strict-resources --no-cache >s1.out 2>&1
st=$?
after=$(entries .pipe)
if expect_exit 2 $st s1.out && has s1.out "join" && has s1.out "2 CPUs (this machine has 1)" &&
    hasnt s1.out "running"; then
    if [ "$before" != "$after" ]; then fail "a run was created" s1.out; else ok; fi
fi

begin "without --strict-resources it warns and runs"
PIPE_LOCAL_CPUS=1 "$D" run --no-cache --param sleep_ms=10 >s2.out 2>&1
st=$?
if expect_exit 0 $st s2.out && has s2.out "warning: invocation join requests 2 CPUs" && has s2.out "4 done"; then ok; fi

begin "strict_resources in the config"
printf 'strict_resources: true\n' >strict.yaml
PIPE_LOCAL_CPUS=1 "$D" run --config strict.yaml >s3.out 2>&1
st=$?
if expect_exit 2 $st s3.out && has s3.out "join"; then ok; fi

begin "bad PIPE_LOCAL_CPUS"
PIPE_LOCAL_CPUS=many "$D" run >s4.out 2>&1
st=$?
if expect_exit 2 $st s4.out && has s4.out "PIPE_LOCAL_CPUS"; then ok; fi

begin "GPUs are assigned from CUDA_VISIBLE_DEVICES"
PIPE_LOCAL_GPUS=4 CUDA_VISIBLE_DEVICES=3,1 OMP_NUM_THREADS=7 "$D" run --no-cache --param sleep_ms=10 >s5.out 2>&1
st=$?
if expect_exit 0 $st s5.out && has s5.out "omp=7 gpus=[]" && has s5.out "omp=7 gpus=[3]"; then ok; fi

begin "a GPU request on a machine without GPUs warns"
PIPE_LOCAL_GPUS=0 "$D" run --no-cache --param sleep_ms=10 >s6.out 2>&1
st=$?
if expect_exit 0 $st s6.out && has s6.out "warning: invocation join requests 1 GPU (this machine has 0)"; then ok; fi

# ---- progress on a pipe ----
begin "still running lines when not on a terminal"
PIPE_PROGRESS_INTERVAL=0.2 "$D" run --no-cache --param sleep_ms=900 >p1.out 2>&1
st=$?
if expect_exit 0 $st p1.out && has p1.out "  still running: left " && hasnt p1.out "$(printf '\033')"; then ok; fi

begin "a status line on a terminal"
if script --version 2>/dev/null | grep -q util-linux; then
    script -qec "\"$D\" run --no-cache --param sleep_ms=1200" p2.out >/dev/null 2>&1
    st=$?
    last_run=$(run_id_of p2.out | tr -d '\r')
    if expect_exit 0 $st p2.out && has p2.out "$(printf '\033[K')" && has p2.out "running: left " &&
        has p2.out "4 done"; then
        ok
    fi
else
    echo "skipped: $case_name (no util-linux script)"
    last_run=$(run_id_of p1.out)
fi

# ---- stores and run ids ----
begin "--run-id and PIPE_STORE"
PIPE_STORE=other "$D" run --run-id my-run --param sleep_ms=10 >i1.out 2>&1
st=$?
if expect_exit 0 $st i1.out && has i1.out "run my-run" && [ -f other/my-run/run.yaml ] &&
    [ -f other/my-run/join/step.yaml ]; then
    ok
elif [ $st -eq 0 ]; then fail "no other/my-run" i1.out; fi

begin "an existing --run-id is refused"
PIPE_STORE=other "$D" run --run-id my-run >i2.out 2>&1
st=$?
if expect_exit 2 $st i2.out && has i2.out "my-run" && has i2.out "already exists"; then ok; fi

begin "a bad --run-id is refused"
"$D" run --run-id ../escape >i3.out 2>&1
st=$?
if expect_exit 2 $st i3.out && has i3.out "--run-id"; then ok; fi

begin "--store beats PIPE_STORE"
PIPE_STORE=other "$D" run --store third --run-id r3 --param sleep_ms=10 >i4.out 2>&1
st=$?
if expect_exit 0 $st i4.out && [ -f third/r3/run.yaml ] && [ ! -d other/r3 ]; then ok; elif [ $st -eq 0 ]; then
    fail "the run is not in third/" i4.out
fi

begin "the printed follow-up commands name the store and work when pasted"
"$D" run --store "a store" --run-id r5 --param fail=true --param sleep_ms=10 >i5.out 2>&1
st=$?
if expect_exit 1 $st i5.out && has i5.out "logs: \`$D logs r5 left --store 'a store'\`" &&
    has i5.out "report: \`$D report r5 --store 'a store'\`"; then
    pasted=0
    for prefix in logs report; do
        cmd=$(sed -n "s/^$prefix: \`\(.*\)\`.*/\1/p" i5.out)
        sh -c "$cmd" >"i5.$prefix.out" 2>&1 || { fail "\`$cmd\` failed" "i5.$prefix.out"; pasted=1; }
    done
    if [ $pasted = 0 ] && has i5.logs.out "asked to fail" && [ -f "a store/r5/report.html" ]; then ok; fi
fi

# ---- history ----
begin "runs"
"$D" runs >h3.out 2>&1
st=$?
newest=$(sed -n '2s/ .*//p' h3.out)
last=$last_run
if expect_exit 0 $st h3.out && has h3.out "$RUN1" && has h3.out "RUN" && has h3.out "failed" && has h3.out "succeeded"; then
    if [ "$newest" != "$last" ]; then fail "newest run is '$newest', expected '$last'" h3.out; else ok; fi
fi

begin "runs in an empty store"
"$D" runs --store empty-store >h4.out 2>&1
st=$?
if expect_exit 0 $st h4.out && has h4.out "no runs"; then ok; fi

begin "show"
"$D" show "$RUN1" >h5.out 2>&1
st=$?
if expect_exit 0 $st h5.out && has h5.out "run $RUN1 of pipeline fake: succeeded" && has h5.out "output   numbers" &&
    has h5.out "sha256 " && has h5.out "accuracy=0.9712" && has h5.out "sleep_ms=400"; then
    ok
fi

begin "show a failed run"
"$D" show "$RUNF" >h6.out 2>&1
st=$?
if expect_exit 0 $st h6.out && has h6.out "asked to fail" && has h6.out "exit 3" && has h6.out "join"; then ok; fi

begin "show an unknown run"
"$D" show 20000101-000000-abcdef >h7.out 2>&1
st=$?
if expect_exit 2 $st h7.out && has h7.out "20000101-000000-abcdef"; then ok; fi

begin "show without a run id shows the latest"
"$D" show >h8.out 2>&1
st=$?
if expect_exit 0 $st h8.out && has h8.out "run $last_run of pipeline fake"; then ok; fi

begin "describe"
"$D" describe >d1.out 2>&1
st=$?
if expect_exit 0 $st d1.out && has d1.out "pipeline fake (from fake.pipe)" && has d1.out "sleep_ms" &&
    has d1.out "default 300" && has d1.out "needs        left, right" && has d1.out "2 CPUs, 1 GPU, 1 MB memory" &&
    has d1.out "retry        1 more attempt" && has d1.out "timeout      1m" &&
    has d1.out "data = produce.numbers" && has d1.out "FAKE_GREETING=hello from the manifest"; then
    ok
fi

# ---- a driver that does not match its runtime or manifest ----
begin "ABI mismatch"
FAKE_BREAK=abi "$D" describe >b1.out 2>&1
st=$?
if expect_exit 2 $st b1.out && has b1.out "ABI"; then ok; fi

begin "a step without implementation"
FAKE_BREAK=missing "$D" describe >b2.out 2>&1
st=$?
if expect_exit 2 $st b2.out && has b2.out "step join"; then ok; fi

begin "a field of the wrong type"
FAKE_BREAK="type" "$D" describe >b3.out 2>&1
st=$?
if expect_exit 2 $st b3.out && has b3.out "factor" && has b3.out "float"; then ok; fi

begin "a broken manifest"
FAKE_BREAK=manifest "$D" describe >b4.out 2>&1
st=$?
if expect_exit 2 $st b4.out && has b4.out "manifest"; then ok; fi

# ---- signals reach every child ----
begin "SIGINT stops the run and every child"
"$D" run --no-cache --param sleep_ms=30000 >g1.out 2>&1 &
runner=$!
i=0
while [ $i -lt 150 ] && ! { grep -q '^\[left\].* pid ' g1.out && grep -q '^\[right\].* pid ' g1.out; }; do
    sleep 0.1
    i=$((i + 1))
done
kill -INT $runner
wait $runner
st=$?
pids=$(sed -n 's/^\[[a-z]*\].* pid \([0-9][0-9]*\)$/\1/p' g1.out)
alive=
for p in $pids; do
    if kill -0 "$p" 2>/dev/null; then alive="$alive $p"; fi
done
if [ -z "$pids" ]; then
    fail "the steps did not report their pids" g1.out
elif [ -n "$alive" ]; then
    fail "processes still alive after the run:$alive" g1.out
    for p in $alive; do kill -KILL "$p" 2>/dev/null; done
elif expect_exit 130 $st g1.out && has g1.out "interrupted" && has g1.out "  join     skipped"; then
    ok
fi

echo
if [ $fails -gt 0 ]; then
    echo "run_e2e: $fails case(s) failed"
    exit 1
fi
echo "run_e2e: all cases passed"
exit 0
