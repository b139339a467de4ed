#!/usr/bin/env bash
# What killed processes leave behind, and who removes it:
#   1. a step process (the supervisor) killed with SIGKILL while its writer
#      is half-way: the runner removes outputs/.NAME.tmp.PID and the
#      $TMPDIR/pipe-* scratch folder;
#   2. the whole tree killed at once: `runs` and `show` say `interrupted` at
#      once (the runner's lock is free), and the next `run` on the store
#      sweeps the leftovers and records the run as interrupted;
#   3. a second `step` for an invocation that is being executed is refused
#      with a message and touches nothing;
#   4. six runs at once on one store all succeed: a sweep leaves alone what
#      is alive.
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
exe="$work/build/crash/crash"
dir="$work/litter"
store="$dir/store"
rm -rf "$dir"
mkdir -p "$dir/tmp"
export TMPDIR="$dir/tmp"
export PIPE_KILL_GRACE_MS=1000
leftovers() { # what a run left in the store and in TMPDIR, one a line
    find "$store" -name '.*.tmp.*' 2>/dev/null
    find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'pipe-*' 2>/dev/null
}

# 1. The writer's supervisor is killed half-way.
"$exe" run --store "$store" --run-id K1 --param chunk_ms=50 >"$dir/K1.out" 2>&1 &
runner=$!
check "wait_for '$store/K1/writer/outputs/.data.tmp.*'" "the writer started writing"
check "[ -n \"\$(find '$TMPDIR' -maxdepth 1 -name 'pipe-writer-*')\" ]" "the writer has a scratch folder"
supervisor=$(sed -n 's/^pid //p' "$store/K1/writer/step.lock")
kill -9 "$supervisor"
wait "$runner"
check "[ $? = 1 ]" "the run fails"
check "[ -z \"\$(leftovers)\" ]" "the runner removed the temporary output and the scratch folder: $(leftovers | tr '\n' ' ')"
check "[ ! -e '$store/K1/writer/outputs' ]" "the killed invocation keeps no outputs/"
check "[ ! -s '$store/K1/writer/step.lock' ]" "its lock holds no record"
check "grep -q 'writer  failed' '$dir/K1.out'" "the runner reports the writer failed"

# 2. The whole tree is killed at once: nobody is left to clean up.
"$exe" run --store "$store" --run-id K2 --param chunk_ms=50 >"$dir/K2.out" 2>&1 &
runner=$!
check "wait_for '$store/K2/writer/outputs/.data.tmp.*'" "the second run's writer started writing"
# shellcheck disable=SC2046
kill -9 "$runner" $(descendants "$runner")
wait "$runner" 2>/dev/null
sleep 0.2
check "[ -n \"\$(leftovers)\" ]" "a tree killed at once leaves litter (for the next run to sweep)"
check "grep -q 'status: running' '$store/K2/run.yaml'" "run.yaml still says running"
"$exe" runs --store "$store" >"$dir/runs.out" 2>&1
check "grep -q '^K2 .* interrupted ' '$dir/runs.out'" "runs shows K2 interrupted"
"$exe" show K2 --store "$store" >"$dir/show.out" 2>&1
check "grep -q 'run K2 of pipeline crash: interrupted' '$dir/show.out'" "show shows K2 interrupted"
"$exe" run --store "$store" --run-id K3 --param chunk_ms=1 >"$dir/K3.out" 2>&1
check "[ $? = 0 ]" "the next run succeeds"
check "[ -z \"\$(leftovers)\" ]" "the next run swept what the killed tree left: $(leftovers | tr '\n' ' ')"
check "grep -q 'status: interrupted' '$store/K2/run.yaml'" "run.yaml of K2 now says interrupted"
check "[ ! -e '$store/K2/writer/outputs' ]" "K2's unfinished writer keeps no outputs/"

# 3. Two `step` for one invocation at once.
"$exe" step writer --run-id K4 --store "$store" --no-cache --param chunk_ms=30 >"$dir/K4a.out" 2>&1 &
first=$!
check "wait_for '$store/K4/writer/outputs/.data.tmp.*'" "the first step is writing"
# What the second could touch: the records, the log, the lock, the
# temporary output (its name and inode; its size grows with the first).
snapshot() {
    stat -c '%n %i %y %s' "$store/K4/run.yaml" "$store/K4/writer/log" "$store/K4/writer/step.lock"
    stat -c '%n %i' "$store"/K4/writer/outputs/.data.tmp.*
    cat "$store/K4/writer/step.lock"
    ls "$store/K4/writer"
}
before=$(snapshot)
"$exe" step writer --run-id K4 --store "$store" --no-cache >"$dir/K4b.out" 2>&1
status=$?
after=$(snapshot)
check "[ $status = 1 ]" "the second step is refused (status $status)"
check "grep -q 'invocation .writer. of run K4 is being executed by another process (pid [0-9]* on host' '$dir/K4b.out'" \
    "it says who executes it"
check "[ '$before' = '$after' ]" "the second step touched nothing"
wait "$first"
check "[ $? = 0 ]" "the first step succeeds"
check "grep -q 'status: done' '$store/K4/writer/step.yaml' && tail -1 '$store/K4/writer/outputs/data' | grep -q 'END 40'" \
    "its output is whole and recorded"
"$exe" step writer --run-id K4 --store "$store" --no-cache >"$dir/K4c.out" 2>&1
check "[ $? = 0 ]" "once the first is done, the invocation can run again"
# 4. Six runs at once on one store: each sweeps the store when it starts,
#    and must leave the others, which are alive, alone.
pids=()
for i in 1 2 3 4 5 6; do
    "$exe" run --store "$store" --run-id "P$i" --no-cache --param chunk_ms=5 >"$dir/P$i.out" 2>&1 &
    pids+=($!)
done
statuses=""
for p in "${pids[@]}"; do
    wait "$p"
    statuses="$statuses $?"
done
check "[ '$statuses' = ' 0 0 0 0 0 0' ]" "six concurrent runs on one store succeed ($statuses)"
check "[ \$(grep -l 'status: done' '$store'/P?/run.yaml | wc -l) = 6 ]" "and each is recorded done"
if [ "$failed" != 0 ]; then
    for f in "$dir"/*.out; do sed "s/^/    $(basename "$f") | /" "$f" | tail -15; done
fi
finish
