#!/usr/bin/env bash
# End to end: examples/accelerate through pipec, CMake and the bundle's
# executable: a C++ step linking OpenBLAS (pkg-config) makes the data, an
# unchanged PyTorch + Accelerate script trains on 2 CPU ranks in bf16 as a
# command step, a Python step evaluates. Checks that
#   - the run exits 0 and the test accuracy is at least 0.85;
#   - Accelerate saw 2 processes, a multi-CPU launch and bf16;
#   - the model folder is in the store, and the loss fell epoch by epoch
#     (PIPE_METRICS lines in metrics.csv);
#   - a second run is cached entirely; editing the script is a new step.
#
#   accelerate.sh PIPEC SOURCE_DIR   (PIPEC_VENV: torch, accelerate, numpy)
set -Eeuo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND exited $?" >&2' ERR
pipec=$(realpath "$1")
src=$(realpath "$2")
venv=${PIPEC_VENV:?PIPEC_VENV names the Python environment (CMake sets it)}
cmake=${CMAKE:-cmake}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
"$venv/bin/python" -c 'import torch, accelerate, numpy' 2>/dev/null ||
    fail "no Python environment with torch, accelerate and numpy at $venv: run scripts/install-deps.sh"
export PATH="$venv/bin:$PATH" # the steps run `python3`, as in a user's activated venv

ok=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipec-e2e-accelerate.XXXXXX")
# Committed artifacts are read-only folders (docs/runtime.md): writable again before rm.
trap '[ "$ok" = 1 ] && chmod -R u+w "$tmp" && rm -rf "$tmp" || echo "(files left in $tmp)" >&2' EXIT
cp -r "$src/examples/accelerate" "$tmp/example"

echo "== pipec check -Werror, build"
"$pipec" check "$tmp/example/classify.pipe" -Werror
"$pipec" build "$tmp/example/classify.pipe" -o "$tmp/bundle" --target local
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$tmp/bundle" -B "$tmp/bundle/build" "${generator[@]}" >"$tmp/cmake.log" 2>&1 ||
    { tail -30 "$tmp/cmake.log"; fail "cmake configure"; }
"$cmake" --build "$tmp/bundle/build" >>"$tmp/cmake.log" 2>&1 || { tail -30 "$tmp/cmake.log"; fail "cmake build"; }
grep -q "libopenblas\|openblas" "$tmp/bundle/build/CMakeCache.txt" || fail "OpenBLAS was not found through pkg-config"
exe=$tmp/bundle/build/classify
store=$tmp/store

echo "== run"
"$exe" run --store "$store" --run-id first >"$tmp/run.log" 2>&1 || { tail -40 "$tmp/run.log"; fail "the run failed"; }
run=$store/first
accuracy=$("$venv/bin/python" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["metrics"]["accuracy"])' \
    "$run/evaluate/step.yaml")
echo "test accuracy $accuracy"
awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.85) }' || fail "accuracy $accuracy is below 0.85"
grep -q "\[rank 0\] 3200 points, 16 features, 4 classes; 2 processes, DistributedType.MULTI_CPU, mixed precision bf16" \
    "$run/train/log" || { cat "$run/train/log"; fail "Accelerate did not see 2 CPU processes in bf16"; }
grep -q "2 ranks of .python3. on 1 machine" "$run/train/log" || fail "pipe did not start 2 ranks"
{ [ -f "$run/train/outputs/model/model.pt" ] && [ -f "$run/train/outputs/model/config.json" ]; } ||
    fail "the model folder is not in the store"
python3 - "$run/train/metrics.csv" <<'PY' || fail "the loss did not fall"
import sys
losses = [float(l.split(",")[2]) for l in open(sys.argv[1]) if l.split(",")[0] == "loss"]
assert len(losses) == 12 and losses[-1] < losses[0] / 2, losses
PY
grep -q "sgemm\|points, 16 features" "$run/make_data/log" || fail "make_data logged nothing"

echo "== a second run is cached; editing the script runs it again"
"$exe" run --store "$store" --run-id second >"$tmp/run2.log" 2>&1 || fail "the second run failed"
for inv in make_data train evaluate; do
    grep -q "^status: cached" "$store/second/$inv/step.yaml" || fail "$inv was not cached"
done
echo "# edited" >>"$tmp/example/train.py"
"$pipec" build "$tmp/example/classify.pipe" -o "$tmp/bundle" --target local
"$cmake" --build "$tmp/bundle/build" >>"$tmp/cmake.log" 2>&1
"$exe" run --store "$store" --run-id third >"$tmp/run3.log" 2>&1 || fail "the third run failed"
grep -q "^status: cached" "$store/third/make_data/step.yaml" || fail "make_data was not cached"
grep -q "^status: done" "$store/third/train/step.yaml" || fail "train did not run again after its script changed"

ok=1
echo "accelerate example: ok"
