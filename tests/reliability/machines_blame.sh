#!/usr/bin/env bash
# Two machines (two launchers on one host, PIPE_MACHINE_RANK=0 and 1, a
# shared store), rank 3 on machine 1 misbehaving (machines_fail in
# src/fault_steps.c). Every machine's record names rank 3 and machine 1,
# not the rank of machine 0 that lost contact; a machine whose launcher is
# killed is named as a machine; after each case the store holds no
# temporary file (*.tmp.*) and no empty outputs/, and no rank is left.
#   1. rank 3 exits 1 (pipe_fail), after the test left error.rank-3.tmp.PID,
#      as a writer stopped between naming an error file and renaming it does
#   1b. rank 0 on machine 0 exits 1: machine 1 names it
#   2. rank 3 stops itself (SIGSTOP): named as stopped responding
#   3. machine 1's launcher is killed (SIGKILL): machine 0 names machine 1;
#      3b. machine 0's: machine 1 names machine 0 and sweeps its outputs/
#   4. machine 1 starts after machine 0 gave up: no outputs/ of its own
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
exe="$work/build/faults/faults"
dir="$work/blame"
store="$dir/store"
rm -rf "$dir"
mkdir -p "$dir/tmp"
export PIPE_KILL_GRACE_MS=1000 TMPDIR="$dir/tmp"

# launch RUN MODE MACHINES: the launchers of MACHINES (e.g. "0 1") in the
# background, machine N's pid in mpid[N]; marker folder $dir/RUN-marker.
declare -a mpid
launch() {
    local run=$1 mode=$2 m
    mkdir -p "$dir/$run-marker"
    for m in $3; do
        PIPE_MACHINE_RANK=$m MASTER_PORT=$port "$exe" step machines_fail --run-id "$run" --store "$store" \
            --main-process-ip 127.0.0.1 --param "mode=$mode" --param "marker=$dir/$run-marker" \
            >"$dir/$run-m$m.out" 2>&1 &
        mpid[m]=$!
    done
}
# What no failure may leave: temporary files, empty outputs/ folders.
litter() { find "$store" \( -name '*.tmp.*' -o -name '.reserve*' -o -name '.*.tail' -o -type d -name outputs -empty \) -print; }
show() {
    local f
    for f in "$@"; do
        [ -f "$f" ] && sed "s|^|    $(basename "$f") \| |" "$f" | tail -30
    done
}
# after RUN: the common checks of a case
after() {
    local run=$1 inv="$store/$1/machines_fail"
    check "[ -z \"\$(litter)\" ]" "$run: no temporary file or empty outputs/ is left ($(litter | tr '\n' ' '))"
    check "[ ! -e '$inv/outputs' ]" "$run: the failed invocation keeps no outputs/"
    sleep 0.3
    check "all_dead '$dir/$run-marker'" "$run: no rank left running"
}

# 1. rank 3 on machine 1 exits 1.
port=$(free_port)
launch F1 fail "0 1"
inv="$store/F1/machines_fail"
wait_for "$dir/F1-marker/machines_fail-pid-3" 200
pid3=$(cat "$dir/F1-marker/machines_fail-pid-3" 2>/dev/null)
: >"$inv/error.rank-3.tmp.$((${pid3:-1} + 1))" # not rank 3's own: its pipe_fail must still write
touch "$dir/F1-marker/go"
wait "${mpid[0]}"
s0=$?
wait "${mpid[1]}"
s1=$?
check "[ $s0 = 1 ] && [ $s1 = 1 ]" "F1: both launchers fail ($s0, $s1)"
check "grep -q 'rank 3 (machine 1, host [^)]*) exited with status 1: rank 3 gives up on purpose' '$inv/step.yaml'" \
    "F1: machine 0's step.yaml names rank 3 on machine 1 and its status"
check "grep -q 'last lines of rank 3' '$inv/step.yaml' && grep -q 'rank 3 gives up with exit status 1' '$inv/step.yaml'" \
    "F1: step.yaml has rank 3's last lines"
check "! grep -q 'lost contact' '$inv/step.yaml'" "F1: step.yaml does not blame a rank that lost contact"
check "grep -q 'error: rank 3 (machine 1, host' '$dir/F1-m0.out' && grep -q 'error: rank 3 (machine 1, host' '$dir/F1-m1.out'" \
    "F1: both launchers say rank 3 on machine 1"
check "grep -q 'failed: rank 3 (machine 1, host' '$inv/log.machine-1' && grep -q 'failed: rank 3 (machine 1, host' '$inv/log'" \
    "F1: both machines' logs say rank 3 on machine 1"
check "grep -q 'rank 3 (machine 1' '$inv/failure.machine-1'" "F1: machine 1's record names rank 3"
check "grep -q 'rank 0 lost contact with machine 1; stopping the other ranks' '$inv/log' && ! grep -q 'rank 0 (machine 0' '$inv/log'" \
    "F1: machine 0's log says its rank 0 lost contact, and does not blame it"
after F1
[ "$failed" = 0 ] || show "$dir/F1-m0.out" "$dir/F1-m1.out" "$inv/step.yaml"

# 1b. rank 0 on machine 0 exits 1: machine 1's ranks lose contact with it,
# and machine 1's record names rank 0 on machine 0.
port=$(free_port)
launch F0 fail0 "0 1"
inv="$store/F0/machines_fail"
wait "${mpid[0]}"
s0=$?
wait "${mpid[1]}"
s1=$?
check "[ $s0 = 1 ] && [ $s1 = 1 ]" "F0: both launchers fail ($s0, $s1)"
check "grep -q 'failed: rank 0 (machine 0, host [^)]*) exited with status 1: rank 0 gives up on purpose' '$inv/log.machine-1' &&
    grep -q 'error: rank 0 (machine 0, host' '$dir/F0-m1.out'" "F0: machine 1's log and launcher name rank 0 on machine 0"
check "grep -q 'rank 0 (machine 0, host [^)]*) exited with status 1: rank 0 gives up on purpose' '$inv/step.yaml' &&
    ! grep -q 'lost contact' '$inv/step.yaml'" "F0: step.yaml names rank 0"
after F0
[ "$failed" = 0 ] || show "$dir/F0-m0.out" "$dir/F0-m1.out" "$inv/log.machine-1"

# 2. rank 3 stops itself: machine 1's watch names it after collective_timeout.
port=$(free_port)
launch S1 stop "0 1"
inv="$store/S1/machines_fail"
wait_for "$dir/S1-marker/machines_fail-pid-3" 200
pid3=$(cat "$dir/S1-marker/machines_fail-pid-3" 2>/dev/null)
for _ in $(seq 100); do
    [ "$(sed 's/.*) \(.\).*/\1/' "/proc/${pid3:-0}/stat" 2>/dev/null)" = T ] && break
    sleep 0.05
done
: >"$inv/error.rank-3.tmp.${pid3:-1}"
wait "${mpid[0]}"
s0=$?
wait "${mpid[1]}"
s1=$?
check "[ $s0 = 1 ] && [ $s1 = 1 ]" "S1: both launchers fail ($s0, $s1)"
check "grep -q 'rank 3 (machine 1, host [^)]*) stopped responding: collective_timeout: rank 3 (pid [0-9]*, stopped' '$inv/step.yaml'" \
    "S1: machine 0's step.yaml names rank 3 on machine 1 as stopped"
check "! grep -q 'lost contact' '$inv/step.yaml'" "S1: step.yaml does not blame a rank that lost contact"
check "grep -q 'failed: rank 3 (machine 1, host [^)]*) stopped responding' '$inv/log.machine-1' && grep -q 'error: rank 3 (machine 1' '$dir/S1-m1.out'" \
    "S1: machine 1's log and launcher name rank 3 as stopped"
after S1
[ "$failed" = 0 ] || show "$dir/S1-m0.out" "$dir/S1-m1.out" "$inv/step.yaml"

# 3. machine 1's launcher is killed while every rank all-reduces.
port=$(free_port)
launch K1 hang "0 1"
inv="$store/K1/machines_fail"
for r in 0 1 2 3; do wait_for "$dir/K1-marker/machines_fail-pid-$r" 200; done
sleep 0.5
kill -KILL "${mpid[1]}"
wait "${mpid[1]}" 2>/dev/null
wait "${mpid[0]}"
s0=$?
check "[ $s0 = 1 ]" "K1: machine 0 fails ($s0)"
check "grep -q 'machine 1 (ranks 2-3) lost contact' '$inv/step.yaml' && grep -q 'error: machine 1 (ranks 2-3) lost contact' '$dir/K1-m0.out'" \
    "K1: machine 0 names machine 1"
check "! grep -q 'rank 0 (machine 0' '$inv/step.yaml'" "K1: machine 0 does not blame its own rank"
check "[ -z \"\$(ls -A '$dir/tmp')\" ]" "K1: machine 1's scratch folder is swept ($(ls -A "$dir/tmp"))"
after K1
[ "$failed" = 0 ] || show "$dir/K1-m0.out" "$inv/step.yaml"

# 3b. machine 0's launcher is killed: machine 1 names machine 0, and sweeps
# the outputs/ that machine 0 made and can no longer remove.
port=$(free_port)
launch K0 hang "0 1"
inv="$store/K0/machines_fail"
for r in 0 1 2 3; do wait_for "$dir/K0-marker/machines_fail-pid-$r" 200; done
sleep 0.5
kill -KILL "${mpid[0]}"
wait "${mpid[0]}" 2>/dev/null
wait "${mpid[1]}"
s1=$?
check "[ $s1 = 1 ]" "K0: machine 1 fails ($s1)"
check "grep -q 'failed: machine 0 (ranks 0-1) lost contact' '$inv/log.machine-1' && grep -q 'error: machine 0 (ranks 0-1) lost contact' '$dir/K0-m1.out'" \
    "K0: machine 1 names machine 0"
after K0
[ "$failed" = 0 ] || show "$dir/K0-m1.out" "$inv/log.machine-1"

# 4. machine 1 starts after machine 0 gave up waiting for it (rdzv_timeout).
port=$(free_port)
launch L1 hang "0"
wait "${mpid[0]}"
s0=$?
launch L1 hang "1"
wait "${mpid[1]}"
s1=$?
check "[ $s0 = 1 ] && [ $s1 = 1 ]" "L1: both launchers fail ($s0, $s1)"
after L1

finish
