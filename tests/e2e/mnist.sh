#!/usr/bin/env bash
# End to end: examples/mnist-like through pipec, CMake and the bundle's
# executable. Builds the bundle in a temporary directory, then checks that
#   - a run exits 0 and evaluate's accuracy is at least 0.9;
#   - a second identical run reports every step as cached;
#   - the same parameters without the cache give the same model, bit for bit;
#   - --param epochs=1 gives another model (and accuracy);
#   - `report` writes a self-contained page with the loss curve;
#   - --param min_accuracy=0.999 fails the run (exit 1) naming evaluate;
#   - a --config file's params reach the steps;
#   - a run killed with SIGKILL while train runs leaves no outputs/model in
#     that run's train directory, and a later run still succeeds.
#
#   mnist.sh PIPEC SOURCE_DIR
set -Eeuo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
pipec=$(realpath "$1")
src=$(realpath "$2")
example=$src/examples/mnist-like/mnist.pipe
cmake=${CMAKE:-cmake}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

ok=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipec-e2e-mnist.XXXXXX")
killed_sid=
cleanup() {
    # Never leave the killed run's processes behind, whatever happened.
    [ -n "$killed_sid" ] && kill_session "$killed_sid"
    if [ "$ok" = 1 ]; then
        rm -rf "$tmp"
    else
        echo "(files left in $tmp)" >&2
    fi
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() { echo "== $*"; }
show_file() { sed 's/^/    | /' "$1" >&2; }

# Runs a command with its output in $tmp/log; shows the log when it fails.
logged() {
    if ! "$@" >"$tmp/log" 2>&1; then
        show_file "$tmp/log"
        fail "command failed: $*"
    fi
}

# The pids of the processes in session SID (from /proc: no ps needed).
session_pids() {
    local sid=$1 f stat fields pid
    for f in /proc/[0-9]*/stat; do
        stat=$(cat "$f" 2>/dev/null) || continue
        # After the command name in parentheses: state ppid pgrp session ...
        read -r -a fields <<<"${stat##*) }"
        if [ "${fields[3]:-}" = "$sid" ]; then
            pid=${f#/proc/}
            echo "${pid%/stat}"
        fi
    done
}

# SIGKILL every process of session SID; waits up to 10 s for them to go.
kill_session() {
    local sid=$1 pids
    for _ in $(seq 1 100); do
        pids=$(session_pids "$sid")
        [ -z "$pids" ] && return 0
        # shellcheck disable=SC2086 # one pid per word
        kill -KILL $pids 2>/dev/null || true
        sleep 0.1
    done
    echo "processes of session $sid still alive: $(session_pids "$sid")" >&2
    return 1
}

store=$tmp/store
work=$tmp/work
mkdir -p "$work"
cd "$work"

# The run directories of the store, one per line (not cache/).
runs() {
    [ -d "$store" ] || return 0
    find "$store" -mindepth 1 -maxdepth 1 -type d ! -name cache -printf '%f\n' | sort
}

# run NAME EXPECTED_EXIT ARGS...: runs the bundle with the store, output in
# $tmp/NAME.out; sets $rundir to the run directory it created.
run() {
    local name=$1 expected=$2 rc=0 before
    shift 2
    before=$(runs)
    "$exe" run --store "$store" "$@" >"$tmp/$name.out" 2>&1 || rc=$?
    if [ "$rc" -ne "$expected" ]; then
        show_file "$tmp/$name.out"
        fail "$name: \`run $*\` exited $rc, expected $expected"
    fi
    rundir=$(comm -13 <(echo "$before") <(runs) | head -n 1)
    [ -n "$rundir" ] || { show_file "$tmp/$name.out"; fail "$name: no new run directory in $store"; }
    rundir=$store/$rundir
}

# status RUN_DIR INVOCATION: the status recorded in its step.yaml.
status() { sed -n 's/^status: *//p' "$1/$2/step.yaml" 2>/dev/null | tr -d '"' | head -n 1; }

# accuracy RUN_DIR: evaluate's last accuracy (metrics.csv: name,step,value,
# time_s; else step.yaml).
accuracy() {
    local a=""
    [ -f "$1/evaluate/metrics.csv" ] &&
        a=$(awk -F, '$1 == "accuracy" { v = $3 } END { print v }' "$1/evaluate/metrics.csv")
    [ -n "$a" ] || a=$(grep -oE 'accuracy: *[0-9.eE+-]+' "$1/evaluate/step.yaml" 2>/dev/null |
        head -n 1 | sed 's/.*: *//')
    echo "$a"
}

model_digest() { sha256sum "$1/train/outputs/model" | cut -d' ' -f1; }

step "pipec check -Werror, fmt --check"
logged "$pipec" check -Werror "$example"
[ ! -s "$tmp/log" ] || { show_file "$tmp/log"; fail "pipec check printed diagnostics"; }
logged "$pipec" fmt --check "$example"

step "pipec build, then the bundle with CMake"
bundle=$tmp/bundle
logged "$pipec" build "$example" -o "$bundle" --target local
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
logged "$cmake" -S "$bundle" -B "$bundle/build" ${gen[@]+"${gen[@]}"} -DCMAKE_BUILD_TYPE=Release
logged "$cmake" --build "$bundle/build"
exe=$bundle/build/mnist
[ -x "$exe" ] || fail "no executable $exe"

step "a run trains the model and reaches accuracy >= 0.9"
run first 0
first=$rundir
acc=$(accuracy "$first")
[ -n "$acc" ] || { show_file "$tmp/first.out"; fail "no accuracy metric in $first/evaluate"; }
awk -v a="$acc" 'BEGIN { exit !(a >= 0.9) }' || fail "accuracy $acc is below 0.9"
for inv in make_data train evaluate; do
    [ "$(status "$first" $inv)" = "done" ] || fail "$inv: status $(status "$first" $inv), expected done"
done
grep -q "epoch 10/10 loss" "$first/train/log" || { show_file "$first/train/log"; fail "no per-epoch loss in train's log"; }
grep -q "accuracy" "$tmp/first.out" || fail "the run's output does not show the accuracy"
echo "accuracy $acc"

step "report: what ran, how long, with which parameters, how the loss fell"
# The printed command, pasted as it is: the executable as started and --store.
# shellcheck disable=SC2016 # the backquotes are the message's
pasted=$(sed -n 's/^report: `\(.*\)` writes .*/\1/p' "$tmp/first.out")
[ "$pasted" = "$exe report $(basename "$first") --store $store" ] ||
    { show_file "$tmp/first.out"; fail "the run does not say where its report can be written (got: $pasted)"; }
logged sh -c "$pasted"
page=$first/report.html
[ -f "$page" ] || { show_file "$tmp/log"; fail "no $page"; }
if ! python3 "$src/tests/report/check_report.py" "$page" --charts 2 --text "Pipeline mnist run $(basename "$first")" \
    --text "3 invocations: 3 done" --text "epochs 10" --text "loss · last" --text "train_accuracy · last" \
    --text "10 values, steps 0–9" --text "accuracy" --text "epoch 10/10 loss" >"$tmp/report.chk" 2>&1; then
    show_file "$tmp/report.chk"
    fail "the report does not show the run"
fi

step "a second identical run is cached"
run second 0
for inv in make_data train evaluate; do
    [ "$(status "$rundir" $inv)" = "cached" ] || { show_file "$tmp/second.out"; fail "$inv: status $(status "$rundir" $inv), expected cached"; }
done
grep -q "cached" "$tmp/second.out" || fail "the output of the second run does not say cached"
[ "$(model_digest "$rundir")" = "$(model_digest "$first")" ] || fail "the cached model differs"

step "the same parameters without the cache train the same model"
run nocache 0 --no-cache
[ "$(status "$rundir" train)" = "done" ] || fail "train: status $(status "$rundir" train) with --no-cache, expected done"
[ "$(model_digest "$rundir")" = "$(model_digest "$first")" ] || fail "training is not deterministic: another model"

step "--param epochs=1 changes the model"
run one_epoch 0 --param epochs=1 --param min_accuracy=0
[ "$(status "$rundir" make_data)" = "cached" ] || fail "make_data: status $(status "$rundir" make_data), expected cached"
[ "$(status "$rundir" train)" = "done" ] || fail "train: status $(status "$rundir" train), expected done"
[ "$(model_digest "$rundir")" != "$(model_digest "$first")" ] || fail "epochs=1 gave the same model"
grep -q "epoch 1/1 loss" "$rundir/train/log" || { show_file "$rundir/train/log"; fail "train did not run 1 epoch"; }
echo "accuracy after 1 epoch: $(accuracy "$rundir") (10 epochs: $acc)"

step "--param min_accuracy=0.999 fails the run, naming evaluate"
run strict 1 --param min_accuracy=0.999
[ "$(status "$rundir" evaluate)" = "failed" ] || fail "evaluate: status $(status "$rundir" evaluate), expected failed"
grep -q "evaluate.*failed\|failed.*evaluate" "$tmp/strict.out" || { show_file "$tmp/strict.out"; fail "the output does not name evaluate as failed"; }
grep -q "below min_accuracy" "$tmp/strict.out" || { show_file "$tmp/strict.out"; fail "the output does not say why evaluate failed"; }

step "--config params reach the steps"
cat >"$tmp/run.yaml" <<'EOF'
params:
  epochs: 2
  hidden: 16
  min_accuracy: 0.5
EOF
run config 0 --config "$tmp/run.yaml"
grep -q "64-16-10 MLP" "$rundir/train/log" || { show_file "$rundir/train/log"; fail "hidden = 16 from the config did not reach train"; }
grep -q "epoch 2/2 loss" "$rundir/train/log" || { show_file "$rundir/train/log"; fail "epochs = 2 from the config did not reach train"; }

step "a run killed with SIGKILL during train leaves no outputs/model"
command -v setsid >/dev/null || fail "setsid (util-linux) is needed"
before=$(runs)
# In a session of its own, so that every process of the run can be found;
# the session leader writes its pid (the session id) before exec.
# shellcheck disable=SC2016 # $$ and $@ are for the inner shell
setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$tmp/killed.sid" \
    "$exe" run --store "$store" --param epochs=100000000 >"$tmp/killed.out" 2>&1 &
for _ in $(seq 1 300); do
    killed_sid=$(cat "$tmp/killed.sid" 2>/dev/null || true)
    killed=$(comm -13 <(echo "$before") <(runs) | head -n 1)
    [ -n "$killed_sid" ] && [ -n "$killed" ] && grep -q "epoch 1/" "$store/$killed/train/log" 2>/dev/null && break
    sleep 0.1
done
if [ -z "$killed" ] || ! grep -q "epoch 1/" "$store/$killed/train/log" 2>/dev/null; then
    show_file "$tmp/killed.out"
    fail "train did not start within 30 s"
fi
kill_session "$killed_sid" || fail "could not kill the run"
killed_sid=
{ wait || true; } 2>/dev/null # the shell's "Killed" notice
[ ! -e "$store/$killed/train/outputs/model" ] || fail "a killed train left $store/$killed/train/outputs/model"
[ "$(status "$store/$killed" train)" != "done" ] || fail "a killed train is recorded as done"
echo "no outputs/model in $killed/train; left there: $(find "$store/$killed/train/outputs" -mindepth 1 -printf '%f ' 2>/dev/null)"

step "a run after the killed one succeeds"
run after 0
[ "$(accuracy "$rundir")" = "$acc" ] || fail "accuracy $(accuracy "$rundir") after the killed run, expected $acc"

ok=1
echo "e2e mnist: ok"
