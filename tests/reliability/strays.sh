#!/usr/bin/env bash
# What a step leaves running, and who ends it (the stray pipeline,
# scripts/stray.py; docs/reliability.md):
#   1. a rank that handles SIGTERM outlives its supervisor (SIGKILLed, under
#      `step` alone): it holds the invocation's lock, so a second `step` is
#      refused while it writes and touches nothing, and the execution after
#      it records only its own files;
#   2. the same under `run`: the runner waits for the rank (its grace)
#      before it sweeps, and nothing is left;
#   3. a rank that ignores SIGTERM is killed by the runner once the grace
#      is over;
#   4. daemons (setsid, a double fork, subprocess in a new session, one that
#      closed every descriptor) are gone when their step ends, under `step`
#      and under `run`;
#   5. a sweep that cannot remove what a dead supervisor left keeps its
#      record, and a later run finishes it;
#   6. a supervisor killed while it commits a large output folder leaves
#      nothing behind, round after round.
set -u
work=$1
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
exe="$work/build/stray/stray"
dir="$work/strays"
store="$dir/store"
rm -rf "$dir"
mkdir -p "$dir/tmp"
export TMPDIR="$dir/tmp"
export PIPE_KILL_GRACE_MS=3000
# A live process (a zombie is not: its parent has yet to reap it).
alive() { [ -n "$1" ] && [ -e "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
# Files the rank of run $1 wrote, wherever the step keeps them meanwhile.
parts() { find "$store/$1/stray_writer" -name 'part-*' 2>/dev/null | wc -l; }
leftovers() { find "$store" -name '.*tmp*' 2>/dev/null; }
# Once run $1's rank writes (into marker folder $2), kills its supervisor
# and waits for the runner ($runner): sets status, and took (ms since the
# kill).
kill_supervisor() {
    check "wait_for '$2/written'" "$1: the rank is writing"
    local supervisor killed_at
    supervisor=$(sed -n 's/^pid //p' "$store/$1/stray_writer/step.lock")
    killed_at=$(now_ms)
    kill -9 "$supervisor"
    wait "$runner"
    status=$?
    took=$(($(now_ms) - killed_at))
}

# 1. `step` alone: the supervisor is killed, its rank goes on for 1.5 s.
m="$dir/m1"
mkdir -p "$m"
"$exe" step stray_writer --run-id S1 --store "$store" --param mode=orphan --param "marker=$m" --param files=40 \
    >"$dir/S1a.out" 2>&1 &
first=$!
check "wait_for '$m/written'" "1: the rank is writing"
kill -9 "$first"
wait "$first" 2>/dev/null
rank=$(marked "$m" rank)
check "[ -n '$rank' ] && alive '$rank'" "1: the rank outlives its supervisor (it handles SIGTERM)"
before=$(parts S1)
"$exe" step stray_writer --run-id S1 --store "$store" --param mode=orphan --param "marker=$m" --param files=40 \
    >"$dir/S1b.out" 2>&1
status=$?
check "[ $status = 1 ]" "1: a second step is refused while the rank lives (status $status)"
check "grep -q 'being executed by another process (pid $first on host .*, which has exited while a process it started still holds the lock)' '$dir/S1b.out'" \
    "1: it says the supervisor is gone and a process it started holds the lock"
check "[ \$(parts S1) -ge $before ]" "1: the refused step removed nothing the rank wrote"
check "[ -n \"\$(marked '$m' term)\" ]" "1: the rank got SIGTERM when its supervisor died"
for _ in $(seq 100); do alive "$rank" || break; sleep 0.05; done
check "! alive '$rank'" "1: the rank ended by itself after its 1.5 s"
"$exe" step stray_writer --run-id S1 --store "$store" --param mode=orphan --param "marker=$m" --param files=40 \
    >"$dir/S1c.out" 2>&1 # the run's parameters are fixed: the same marker
check "[ $? = 0 ]" "1: once the rank is gone, the invocation runs again"
out="$store/S1/stray_writer/outputs/out"
# shellcheck disable=SC2012 # names are part-PID-NNNN, no odd characters
check "[ \$(ls '$out' | wc -l) = 40 ] && [ \$(ls '$out' | sed 's/-[0-9]*\$//' | sort -u | wc -l) = 1 ]" \
    "1: the recorded output holds the 40 files of its own execution, none of the killed one"

# 2. Under `run`: the runner waits for the rank, then sweeps.
m="$dir/m2"
mkdir -p "$m"
"$exe" run --store "$store" --run-id R2 --param mode=orphan --param "marker=$m" --param files=400 >"$dir/R2.out" 2>&1 &
runner=$!
kill_supervisor R2 "$m"
check "[ $status = 1 ]" "2: the run fails (status $status)"
check "[ -n \"\$(marked '$m' exit)\" ]" "2: the rank saved and ended by itself"
check "[ $took -ge 1300 ]" "2: the runner waited for it (${took} ms)"
check "[ -z \"\$(leftovers)\" ] && [ ! -e '$store/R2/stray_writer/outputs' ]" \
    "2: nothing is left: $(leftovers | tr '\n' ' ')"
check "[ ! -s '$store/R2/stray_writer/step.lock' ]" "2: its lock holds no record"

# 3. A rank that ignores SIGTERM: killed when the grace is over.
m="$dir/m3"
mkdir -p "$m"
PIPE_KILL_GRACE_MS=1000 "$exe" run --store "$store" --run-id R3 --param mode=stubborn --param "marker=$m" \
    >"$dir/R3.out" 2>&1 &
runner=$!
kill_supervisor R3 "$m"
rank=$(marked "$m" rank)
check "! alive '$rank'" "3: the stubborn rank is gone when the run ends"
check "[ $took -ge 900 ] && [ $took -lt 5000 ]" "3: killed after the 1 s grace (${took} ms)"
check "[ -z \"\$(leftovers)\" ]" "3: nothing is left: $(leftovers | tr '\n' ' ')"

# 4. Daemons end with their step.
for how in step run; do
    m="$dir/m4-$how"
    mkdir -p "$m"
    if [ "$how" = step ]; then
        "$exe" step stray_writer --run-id "D$how" --store "$store" --param mode=daemons --param "marker=$m" \
            --param files=3 >"$dir/D$how.out" 2>&1
    else
        "$exe" run --store "$store" --run-id "D$how" --param mode=daemons --param "marker=$m" --param files=3 \
            >"$dir/D$how.out" 2>&1
    fi
    check "[ $? = 0 ]" "4 ($how): the step succeeds"
    for kind in setsid doublefork popen closed; do
        pid=$(marked "$m" "$kind")
        check "[ -n '$pid' ] && ! alive '$pid'" "4 ($how): the $kind daemon ${pid:-(none)} is gone"
    done
    check "grep -q 'killed [0-9]* processes that the step started and left running' '$store/D$how/stray_writer/log'" \
        "4 ($how): the log says what was killed"
done

# 5. A sweep that cannot finish keeps its record.
m="$dir/m5"
mkdir -p "$m"
"$exe" step stray_writer --run-id W1 --store "$store" --param mode=stubborn --param "marker=$m" >"$dir/W1.out" 2>&1 &
first=$!
check "wait_for '$m/written'" "5: the rank is writing"
rank=$(marked "$m" rank)
kill -9 "$first" "$rank"
wait "$first" 2>/dev/null
part=$(find "$store/W1/stray_writer/outputs" -name 'part-*' | head -1)
check "[ -n '$part' ]" "5: the killed rank left a file in outputs/"
# A file that cannot be removed: immutable for root, in a read-only folder
# for anyone else.
if [ "$(id -u)" = 0 ]; then
    chattr +i "$part" || bad "5: chattr +i $part (the test needs ext4, xfs or btrfs under $dir)"
    undo() { chattr -i "$part"; }
else
    chmod 0555 "$(dirname "$part")"
    undo() { chmod 0755 "$(dirname "$part")"; }
fi
"$exe" run --store "$store" --run-id W2 --param mode=orphan --param "marker=$m" --param files=1 >"$dir/W2.out" 2>&1
check "[ $? = 0 ]" "5: the next run succeeds"
check "[ -e '$part' ] && [ -s '$store/W1/stray_writer/step.lock' ]" \
    "5: what could not be removed is there, and so is the record that names it"
undo
"$exe" run --store "$store" --run-id W3 --param mode=orphan --param "marker=$m" --param files=1 >"$dir/W3.out" 2>&1
check "[ $? = 0 ]" "5: a later run succeeds"
check "[ ! -e '$store/W1/stray_writer/outputs' ] && [ ! -s '$store/W1/stray_writer/step.lock' ]" \
    "5: it finished the sweep and emptied the record"

# 6. Killed during the commit of a folder of 2000 files.
for round in 1 2 3 4; do
    m="$dir/m6-$round"
    mkdir -p "$m"
    "$exe" run --store "$store" --run-id "C$round" --param mode=many --param "marker=$m" --param files=2000 \
        >"$dir/C$round.out" 2>&1 &
    runner=$!
    wait_for "$m/exit-pid-*" 200
    sleep "0.0$((RANDOM % 10))"
    supervisor=$(sed -n 's/^pid //p' "$store/C$round/stray_writer/step.lock")
    [ -n "$supervisor" ] && kill -9 "$supervisor"
    wait "$runner"
    check "[ ! -e '$store/C$round/stray_writer/outputs' ] || grep -q 'status: done' '$store/C$round/stray_writer/step.yaml'" \
        "6 ($round): a killed commit keeps no outputs/"
    check "[ -z \"\$(leftovers)\" ] && [ ! -s '$store/C$round/stray_writer/step.lock' ]" \
        "6 ($round): nothing is left: $(leftovers | head -3 | tr '\n' ' ')"
done

for d in "$dir"/m*; do
    for p in $(marked "$d" rank); do kill -9 "$p" 2>/dev/null; done
done
if [ "$failed" != 0 ]; then
    for f in "$dir"/*.out; do sed "s/^/    $(basename "$f") | /" "$f" | tail -15; done
fi
finish
