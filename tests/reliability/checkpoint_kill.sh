#!/usr/bin/env bash
# The kill test (docs/checkpoints.md): a deterministic loop of 1,000
# iterations that checkpoints every 50 (@checkpoint), once as a C step
# (resume_c: the pipe_checkpoint_* API) and once as a Python command step
# (resume_py: PIPE_CHECKPOINT_DIR and PIPE_CHECKPOINT_LATEST), is killed
# KILLS times with SIGTERM (to the runner: a Ctrl-C, a preemption) and
# KILLS times with SIGKILL (to the whole process tree at once: a machine
# that dies), at random moments while it iterates, every third kill while
# a checkpoint is being written; after each kill the run is started again
# on the same store. Checks that
#   - a SIGTERM ends the run `interrupted` with status 143, the step saving
#     where it was (no iteration lost);
#   - no kill loses more than 50 iterations (what the next run resumes from
#     against what the killed one had done);
#   - no torn checkpoint is ever loaded (the step checks what it loads);
#   - each training's final state is bit for bit an uninterrupted run's,
#     and its checkpoint folder is gone once it succeeded.
# When a training finishes before the kills are spent, the next one starts
# with another seed. Prints the figures per step kind.
#
#   checkpoint_kill.sh WORK [KILLS]   KILLS per signal and step kind: 3 (CI),
#                                     20 from bench/checkpoint_kill.sh
set -u
work=$(cd "$1" && pwd) # absolute: a command step runs in its bundle's folder
kills=${2:-3}
# shellcheck source=tests/reliability/lib.sh
. "$(dirname "$0")/lib.sh"
dir="$work/checkpoint_kill"
rm -rf "$dir"
mkdir -p "$dir/tmp"
export TMPDIR="$dir/tmp"
RANDOM=$(($$ % 32768))
every=50

count_lines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }

# The SHA-256 of the final state of an uninterrupted run of seed $1.
baseline() {
    local m="$dir/base-$kind-$1"
    mkdir -p "$m"
    "$exe" run --store "$dir/base-$kind" --run-id "s$1" --param "seed=$1" --param "marker=$m" >"$m.out" 2>&1 ||
        { bad "$kind: the uninterrupted run of seed $1 failed"; return; }
    sha256sum "$dir/base-$kind/s$1/loop_$kind/outputs/state" | cut -d' ' -f1
}

# Seed $seed's training ended with run r$run: its state is the baseline's.
check_round() {
    local got want
    got=$(sha256sum "$store/r$run/loop_$kind/outputs/state" 2>/dev/null | cut -d' ' -f1)
    want=$(baseline "$seed")
    rounds=$((rounds + 1))
    if [ -n "$got" ] && [ "$got" = "$want" ]; then identical=$((identical + 1)); fi
    check "[ '$got' = '$want' ]" "$kind seed $seed: the final state is an uninterrupted run's ($got, $want)"
    check "[ -z \"\$(find '$store/cache' -path '*checkpoints*' -name 'loop_$kind-*' 2>/dev/null)\" ]" \
        "$kind seed $seed: its checkpoint folder is gone after success"
}

for kind in c py; do
    exe="$work/build/resume_$kind/resume_$kind"
    store="$dir/store-$kind"
    term=0 sigkill=0 during=0 lost_max=0 lost_sum=0 lost_n=0 term_lost_max=0 rounds=0 identical=0
    seed=1 run=0 left=""
    m="$dir/m-$kind-$seed"
    mkdir -p "$m"
    while :; do
        run=$((run + 1))
        before=$(count_lines "$m/starts")
        "$exe" run --store "$store" --run-id "r$run" --param "seed=$seed" --param "marker=$m" \
            >"$dir/$kind-r$run.out" 2>&1 &
        runner=$!
        for _ in $(seq 500); do
            [ "$(count_lines "$m/starts")" -gt "$before" ] && break
            kill -0 "$runner" 2>/dev/null || break
            sleep 0.02
        done
        from=$(tail -1 "$m/starts" 2>/dev/null | sed 's/^start //')
        if [ -n "$left" ] && [ -z "$from" ]; then
            bad "$kind: run r$run never started iterating"
            kill -9 "$runner" 2>/dev/null
            break
        fi
        if [ -n "$left" ]; then # what the last kill cost
            lost=$((left - from))
            lost_n=$((lost_n + 1))
            lost_sum=$((lost_sum + lost))
            [ "$lost" -gt "$lost_max" ] && lost_max=$lost
            [ "$how" = TERM ] && [ "$lost" -gt "$term_lost_max" ] && term_lost_max=$lost
            check "[ $lost -ge 0 ] && [ $lost -le $every ]" "$kind: a SIG$how lost $lost iterations ($left done, resumed at $from)"
            [ "$how" = TERM ] && check "[ $lost = 0 ]" "$kind: a SIGTERM lost no iteration (lost $lost)"
            left=""
        fi
        if [ "$term" -ge "$kills" ] && [ "$sigkill" -ge "$kills" ]; then
            wait "$runner"
            status=$?
            check "[ $status = 0 ]" "$kind: the last run completes (status $status)"
            check_round
            break
        fi
        # The next kill: SIGTERM and SIGKILL in turn while both are due.
        if [ "$term" -lt "$kills" ] && { [ "$sigkill" -ge "$kills" ] || [ $(((term + sigkill) % 2)) = 0 ]; }; then
            how=TERM
        else
            how=KILL
        fi
        tree=$(descendants "$runner") # now: a kill while a checkpoint is written must not wait for /proc
        if [ $(((term + sigkill) % 3)) = 2 ]; then # while a checkpoint is being written
            for _ in $(seq 200); do
                compgen -G "$store/cache/checkpoints/resume_$kind/*/.step_*.tmp" >/dev/null && break
                kill -0 "$runner" 2>/dev/null || break
                sleep 0.01
            done
        else
            sleep "0.$(printf '%03d' $((RANDOM % 300)))"
        fi
        if [ "$how" = TERM ]; then
            kill -TERM "$runner"
        else
            # shellcheck disable=SC2086 # pids
            kill -9 "$runner" $tree 2>/dev/null
        fi
        wait "$runner" 2>/dev/null # bash would say "Killed"
        status=$?
        # The training ended before the kill reached it (the run may still
        # say interrupted: it got the signal): the next seed.
        if [ "$status" = 0 ] || grep -q 'status: done' "$store/r$run/loop_$kind/step.yaml" 2>/dev/null; then
            check_round
            seed=$((seed + 1))
            m="$dir/m-$kind-$seed"
            mkdir -p "$m"
            continue
        fi
        if [ "$how" = TERM ]; then
            term=$((term + 1))
            check "[ $status = 143 ]" "$kind: SIGTERM ends the run with status 143 (not $status)"
            check "grep -q 'status: interrupted' '$store/r$run/loop_$kind/step.yaml' && grep -q 'status: interrupted' '$store/r$run/run.yaml'" \
                "$kind: SIGTERM: the step and the run are recorded interrupted"
        else
            sigkill=$((sigkill + 1))
            if compgen -G "$store/cache/checkpoints/resume_$kind/*/.step_*.tmp" >/dev/null; then
                during=$((during + 1))
            fi
        fi
        left=$(cat "$m/progress")
    done
    torn=$(cat "$dir"/m-"$kind"-*/torn 2>/dev/null | wc -l)
    check "[ $torn = 0 ]" "$kind: no torn checkpoint was loaded ($torn)"
    check "[ $during -gt 0 ]" "$kind: some SIGKILLs landed while a checkpoint was being written ($during)"
    name=$([ "$kind" = c ] && echo "C step" || echo "Python command step")
    avg=$(awk -v s="$lost_sum" -v n="$lost_n" 'BEGIN { printf "%.1f", n ? s / n : 0 }')
    echo "$name: $((term + sigkill)) kills ($term SIGTERM, $sigkill SIGKILL, $during of them during a checkpoint write);" \
        "iterations lost per kill: at most $lost_max, on average $avg (SIGTERM: at most $term_lost_max);" \
        "torn checkpoints loaded: $torn; final results bit-identical to an uninterrupted run: $identical of $rounds"
done
if [ "$failed" != 0 ]; then
    for f in "$dir"/*.out; do sed "s/^/    $(basename "$f") | /" "$f" | tail -8; done
fi
finish
