#!/usr/bin/env bash
# collective_timeout: three CPU ranks, and rank 1 stops itself (SIGSTOP)
# between two all-reduces. With collective_timeout = "5s" the step fails in
# seconds, naming rank 1 and its state, and no rank is left behind: the
# stopped one neither, since SIGKILL reaches a stopped process.
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
exe="$work/build/faults/faults"
store="$work/hung/store"
marker="$work/hung/marker"
rm -rf "$work/hung"
mkdir -p "$marker"
export PIPE_KILL_GRACE_MS=1000

start=$(now_ms)
timeout 60 "$exe" step hang --run-id H1 --store "$store" --param mode=sigstop --param "marker=$marker" \
    >"$work/hung/H1.out" 2>&1 &
launcher=$!
# While ranks 0 and 2 wait: no rank holds a socket. The rendezvous server
# runs in the launcher; a rank forked from it closes the server's listening
# socket and connections, and its own rendezvous client once it joined.
for _ in $(seq 100); do [ "$(find "$marker" -name "hang-pid-*" | wc -l)" -ge 3 ] && break; sleep 0.05; done
sleep 1
sockets=0
for f in "$marker"/hang-pid-*; do
    pid=$(cat "$f")
    n=$(find "/proc/$pid/fd" -lname 'socket:*' 2>/dev/null | wc -l)
    sockets=$((sockets + n))
done
check "[ $sockets = 0 ]" "the waiting ranks hold no socket ($sockets): not the launcher's listening one"
wait "$launcher"
status=$?
elapsed=$(($(now_ms) - start))
rec="$store/H1/hang/step.yaml"
check "[ $status = 1 ]" "the step fails (status $status; 124: it hung until timeout(1) killed it)"
check "[ $elapsed -ge 4500 ] && [ $elapsed -lt 12000 ]" "it fails about collective_timeout after the stop (took $elapsed ms)"
check "grep -q 'rank 1 (pid [0-9]*, stopped' '$rec'" "the error names rank 1 and says it is stopped"
check "grep -q 'never entered an all-reduce (collective #2' '$rec'" "the error says which collective"
check "grep -q 'ranks 0, 2 waited in for 5s' '$rec'" "the error names the ranks that waited"
check "grep -q 'collective_timeout: rank 1' '$store/H1/hang/log'" "the log says it too"
sleep 0.3
check "all_dead '$marker'" "no rank is left, the stopped one neither"
if [ "$failed" != 0 ]; then
    sed 's/^/    | /' "$work/hung/H1.out"
    [ -f "$rec" ] && sed 's/^/    step.yaml | /' "$rec"
    for f in "$marker"/*-pid-*; do kill -9 "$(cat "$f")" 2>/dev/null; done
fi

# The same step with every rank present succeeds: the watch costs nothing.
"$exe" step hang --run-id H2 --store "$store" --param mode=ok --param "marker=$marker" >"$work/hung/H2.out" 2>&1
check "[ $? = 0 ]" "without the stop the step succeeds"
finish
