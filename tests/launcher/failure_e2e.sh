#!/usr/bin/env bash
# How a local run reports failures (docs/runtime.md, "Failures"): build
# failure/failure.pipe into a bundle and `run` it.
#   - each failed invocation's root cause is printed once, in the summary:
#     "ID failed: CAUSE", the failing rank's last lines, the log's path;
#   - the cause names the rank that failed first (rank 1, status 3), even
#     though rank 0 failed after it with an account of its own; the note
#     "... ; stopping the other ranks" names the same rank;
#   - a failed invocation keeps no outputs/ folder;
#   - a second run shows the cached invocation as cached, never as running.
set -u
pipec=$1
src_dir=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $1"
    if [ $# -gt 1 ] && [ -f "$2" ]; then sed 's/^/    | /' "$2"; fi
}
# count FILE TEXT: lines of FILE holding the fixed string TEXT
count() { grep -c -F -- "$2" "$1"; }
expect_count() { # FILE TEXT N
    local n
    n=$(count "$1" "$2")
    if [ "$n" = "$3" ]; then ok; else bad "\`$2\` printed $n times, expected $3" "$1"; fi
}

"$pipec" build "$src_dir/failure.pipe" -o "$work/bundle" --target local >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; echo "pipec build failed"; exit 1; }
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
{ cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DPIPE_WITH_CUDA=OFF &&
    cmake --build "$work/bundle/build"; } >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log"; echo "bundle build failed"; exit 1; }
exe="$work/bundle/build/failure"
store="$work/store"
export MASTER_PORT=0 PIPE_KILL_GRACE_MS=3000
cd "$work" || exit 1

"$exe" run --store "$store" --run-id first >first.out 2>&1
status=$?
if [ $status = 1 ]; then ok; else bad "the run exited $status, expected 1" first.out; fi

# One block per failed invocation, in the summary (after the table).
expect_count first.out "split_brain failed: " 1
expect_count first.out "solo failed: " 1
summary=$(sed -n '/^summary:/,$p' first.out)
# shellcheck disable=SC2016 # the backquotes are the message's, not a command
if grep -q '^split_brain failed: rank 1 (machine 0, host [^)]*) exited with status 3: step `split_brain` returned 3$' \
    <<<"$summary"; then ok; else bad "the cause is not rank 1's exit status 3" first.out; fi
if grep -q '^solo failed: exited with status 1: solo gives up on purpose$' <<<"$summary"; then ok; else
    bad "the cause of solo is not its pipe_fail text" first.out
fi
# The cause appears nowhere else: not echoed live, not on the progress line.
expect_count first.out "exited with status 3" 2 # the stop note and the cause
expect_count first.out "rank 1 (machine 0, host" 2
expect_count first.out "solo gives up on purpose" 3 # its own log line, the cause, the log tail
expect_count first.out "split_brain  failed (exit 3)" 1
# The supervisors print no "[ID] error: ..." of their own under `run`.
if grep -q '^\[[a-z_]*\] error: ' first.out; then bad "a supervisor repeated the cause on stderr" first.out; else ok; fi
# No contradiction: the note and the cause name rank 1; rank 0's account is not the cause.
if grep -q 'rank 1 (machine 0, host [^)]*) exited with status 3; stopping the other ranks' first.out; then ok; else
    bad "no stop note naming rank 1" first.out
fi
if grep -q 'failed: rank 0\|failed: .*rank 0 lost its peer' first.out; then
    bad "a failure is blamed on rank 0" first.out
else
    ok
fi
# The tail is rank 1's, then where the log is.
if grep -A3 '^split_brain failed: ' first.out | grep -q 'last lines of rank 1:' &&
    grep -A4 '^split_brain failed: ' first.out | grep -q '\[rank 1\] rank 1 gives up with exit status 3' &&
    grep -q "^  log: $store/first/split_brain/log\$" first.out; then ok; else
    bad "the block lacks rank 1's last lines or the log's path" first.out
fi
# step.yaml holds the same cause.
if grep -q 'rank 1 (machine 0, host' "$store/first/split_brain/step.yaml" &&
    ! grep -q 'rank 0 lost its peer' "$store/first/split_brain/step.yaml"; then ok; else
    bad "step.yaml's error is not rank 1's" "$store/first/split_brain/step.yaml"
fi
# A failed invocation keeps no outputs/, not even an empty one.
for inv in split_brain solo; do
    if [ -d "$store/first/$inv" ] && [ ! -e "$store/first/$inv/outputs" ]; then ok; else
        bad "$inv: outputs/ is still there after the failure" first.out
    fi
done
if [ -f "$store/first/prepare/outputs/data" ]; then ok; else bad "prepare's output is missing" first.out; fi

# A second run: prepare is cached, and never shown running.
"$exe" run --store "$store" --run-id second --param mode=pass >second.out 2>&1
status=$?
if [ $status = 0 ]; then ok; else bad "the second run exited $status" second.out; fi
if grep -q '^  prepare  *cached' second.out && ! grep -q '^  prepare  *running' second.out; then ok; else
    bad "prepare was shown running before cached" second.out
fi
if grep -q '^  solo  *running' second.out && grep -q '^  solo  *done' second.out; then ok; else
    bad "solo was not shown running, then done" second.out
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
