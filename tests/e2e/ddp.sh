#!/usr/bin/env bash
# End to end: examples/ddp through pipec, CMake and the bundle's executable.
# Builds the bundle of pipeline `ddp` in a temporary directory, then checks
#   - pipec check -Werror and fmt --check are clean for the file;
#   - a run exits 0; train_1, train_2 and train_4 ran with 1, 2 and 4 ranks
#     (each rank's log line, and RANK/WORLD_SIZE as the step saw them), every
#     rank of a step ended with the same weights, and compare found the
#     three models equal within its tolerance (metric max_abs_diff <= 1e-4)
#     and accurate (accuracy_1 >= 0.9); train_1, train_2 and train_4 end with
#     the same weight hash, bit for bit;
#   - train_fp16 skipped some steps for fp16 overflow and still agrees;
#   - --param batch_size=62 fails train_4 (not divisible by 4 ranks) while
#     train_2 runs;
#   - pipeline `ddp_gpu` builds: with a CUDA compiler its .cu is compiled by
#     the bundle's CMake (and run when two GPUs are visible); without one the
#     bundle still builds and train_gpu fails with a clear message.
#
#   ddp.sh PIPEC SOURCE_DIR
set -Eeuo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
pipec=$(realpath "$1")
src=$(realpath "$2")
example=$src/examples/ddp/ddp.pipe
cmake=${CMAKE:-cmake}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

ok=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipec-e2e-ddp.XXXXXX")
cleanup() {
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

store=$tmp/store
work=$tmp/work
mkdir -p "$work"
cd "$work"

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

status() { sed -n 's/^status: *//p' "$1/$2/step.yaml" 2>/dev/null | tr -d '"' | head -n 1; }

# metric RUN_DIR INVOCATION NAME: the last value of a metric (metrics.csv:
# name,step,value,time_s).
metric() {
    [ -f "$1/$2/metrics.csv" ] || return 0
    awk -F, -v n="$3" '$1 == n { v = $3 } END { print v }' "$1/$2/metrics.csv"
}

# at_most VALUE LIMIT / at_least VALUE LIMIT: numeric comparisons.
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }'; }

gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)

step "pipec check -Werror, fmt --check (both pipelines)"
logged "$pipec" check -Werror "$example"
[ ! -s "$tmp/log" ] || { show_file "$tmp/log"; fail "pipec check printed diagnostics"; }
logged "$pipec" fmt --check "$example"

step "pipec build --pipeline ddp, then the bundle with CMake"
bundle=$tmp/bundle
logged "$pipec" build "$example" --pipeline ddp -o "$bundle" --target local
logged "$cmake" -S "$bundle" -B "$bundle/build" ${gen[@]+"${gen[@]}"} -DCMAKE_BUILD_TYPE=Release
logged "$cmake" --build "$bundle/build"
exe=$bundle/build/ddp
[ -x "$exe" ] || fail "no executable $exe"

step "a run trains with 1, 2 and 4 ranks and compare finds the same model"
run first 0
first=$rundir
for inv in make_data train_1 train_2 train_4 train_fp16 compare; do
    [ "$(status "$first" $inv)" = "done" ] || { show_file "$tmp/first.out"; fail "$inv: status $(status "$first" $inv), expected done"; }
done
for n in 1 2 4; do
    log=$first/train_$n/log
    for ((r = 0; r < n; r++)); do
        grep -q "\[rank $r\] rank $r of $n (local rank $r of $n)" "$log" ||
            { show_file "$log"; fail "train_$n: no log line from rank $r of $n"; }
    done
    grep -q "rank $n of" "$log" && { show_file "$log"; fail "train_$n: a rank $n in a world of $n"; }
    [ "$(metric "$first" "train_$n" world_size)" = "$n" ] || fail "train_$n: metric world_size is not $n"
    # Every rank applied the same all-reduced updates: identical weights.
    hashes=$(sed -n 's/.*weights fnv1a \([0-9a-f]*\).*/\1/p' "$log" | sort | uniq -c)
    if [ "$(echo "$hashes" | wc -l)" != 1 ] || [ "$(echo "$hashes" | awk '{ print $1 }')" != "$n" ]; then
        show_file "$log"
        fail "train_$n: the $n ranks did not end with the same weights: $hashes"
    fi
    echo "train_$n: world size $n, every rank ends with weights $(echo "$hashes" | awk '{ print $2 }')"
    weights[n]=$(echo "$hashes" | awk '{ print $2 }')
done
# The sums are exchanged in double and rounded once: 1, 2 and 4 ranks make
# the same updates, bit for bit (float sums would drift apart by 6.6e-7 here,
# and by 1.3e-4 after 300 epochs).
{ [ "${weights[1]}" = "${weights[2]}" ] && [ "${weights[1]}" = "${weights[4]}" ]; } ||
    fail "1, 2 and 4 ranks ended with different weights: ${weights[1]} ${weights[2]} ${weights[4]}"
diff=$(metric "$first" compare max_abs_diff)
acc=$(metric "$first" compare accuracy_1)
at_most "$diff" 1e-4 || { show_file "$first/compare/log"; fail "max_abs_diff = '$diff', expected <= 1e-4"; }
at_least "$acc" 0.9 || { show_file "$first/compare/log"; fail "accuracy_1 = '$acc', expected >= 0.9"; }
for n in 2 4; do
    [ "$(metric "$first" compare "accuracy_$n")" = "$acc" ] || fail "accuracy_$n differs from accuracy_1 ($acc)"
done
grep -q "1, 2 and 4 ranks agree" "$first/compare/log" || { show_file "$first/compare/log"; fail "compare did not say the models agree"; }
echo "max_abs_diff $diff, accuracy $acc"

step "train_fp16 exchanged fp16 gradients with a dynamic loss scale"
skipped=$(metric "$first" train_fp16 skipped_steps)
at_least "$skipped" 1 || { show_file "$first/train_fp16/log"; fail "train_fp16 skipped no step (skipped_steps '$skipped'): the loss scaler was not exercised"; }
grep -q "fp16 overflow, step skipped" "$first/train_fp16/log" || fail "train_fp16 logged no skipped step"
at_least "$(metric "$first" compare accuracy_fp16)" 0.88 || fail "accuracy_fp16 $(metric "$first" compare accuracy_fp16) is below 0.88"
echo "skipped $skipped steps, final loss scale $(metric "$first" train_fp16 loss_scale), accuracy $(metric "$first" compare accuracy_fp16)"

step "batch_size=62 cannot be split over 4 ranks: train_4 fails, train_2 runs"
run odd 1 --param batch_size=62 --param epochs=1
[ "$(status "$rundir" train_2)" = "done" ] || fail "train_2: status $(status "$rundir" train_2) with batch_size=62, expected done"
[ "$(status "$rundir" train_4)" = "failed" ] || fail "train_4: status $(status "$rundir" train_4) with batch_size=62, expected failed"
grep -q "divisible by the 4 ranks" "$tmp/odd.out" || { show_file "$tmp/odd.out"; fail "the output does not say why train_4 failed"; }
[ "$(status "$rundir" compare)" != "done" ] || fail "compare ran although train_4 failed"

step "pipeline ddp_gpu: the CUDA step compiles"
gbundle=$tmp/gpu
logged "$pipec" build "$example" --pipeline ddp_gpu -o "$gbundle" --target local
[ -f "$gbundle/src/ddp_gpu_cuda.cu" ] || fail "no CUDA glue generated for ddp_gpu"
grep -q "train_gpu.cu" "$gbundle/CMakeLists.txt" || fail "the bundle's CMakeLists.txt does not compile train_gpu.cu"
logged "$cmake" -S "$gbundle" -B "$gbundle/build" ${gen[@]+"${gen[@]}"} -DCMAKE_BUILD_TYPE=Release
cp "$tmp/log" "$tmp/gpu-cmake.log"
logged "$cmake" --build "$gbundle/build"
[ -x "$gbundle/build/ddp_gpu" ] || fail "no executable $gbundle/build/ddp_gpu"
if grep -q "ddp_gpu: CUDA 1" "$tmp/gpu-cmake.log"; then
    find "$gbundle/build" -name 'train_gpu.cu.o' | grep -q . || fail "CUDA found but train_gpu.cu.o was not built"
    echo "train_gpu.cu compiled by $(sed -n 's/.*The CUDA compiler identification is //p' "$tmp/gpu-cmake.log")"
    gpus=0
    command -v nvidia-smi >/dev/null 2>&1 && gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    if [ "$gpus" -ge 2 ]; then
        exe=$gbundle/build/ddp_gpu
        run gpu 0
        at_least "$(metric "$rundir" evaluate_gpu accuracy)" 0.9 || fail "the GPU model's accuracy is below 0.9"
        echo "ran on $gpus GPUs: accuracy $(metric "$rundir" evaluate_gpu accuracy)"
    else
        echo "skipped running it: $gpus GPUs visible, it needs 2"
    fi
else
    echo "skipped compiling train_gpu.cu: CMake found no CUDA compiler"
    exe=$gbundle/build/ddp_gpu
    run nocuda 1
    grep -q "needs its CUDA sources" "$tmp/nocuda.out" || { show_file "$tmp/nocuda.out"; fail "train_gpu did not fail with a clear message"; }
fi

ok=1
echo "e2e ddp: ok"
