#!/usr/bin/env bash
# End to end: examples/experiment through pipec, CMake and the bundle's
# executable: Python prep (NumPy), C++ standardize (OpenBLAS through
# pkg-config), Accelerate training on 2 CPU ranks, PyTorch evaluation, none
# of them writing a metric file by hand (the bundle's `pipe` module does).
# Checks that
#   - the file is checked clean and in canonical layout;
#   - all four steps succeed and the test accuracy is at least 0.85;
#   - train's metrics.csv has `loss` and `train_accuracy` for every epoch,
#     from `accelerator.log` through pipe.accelerate.PipeTracker, the loss
#     falling;
#   - evaluate's media/index.jsonl names the confusion matrix (a PNG of
#     one cell per pair of classes) and the per-class table, their files
#     present;
#   - `report` writes a self-contained page;
#   - parameters reach the scripts: `--param lr=...` runs train and
#     evaluate again (prep and standardize cached) and changes the loss,
#     and the same parameters give the same losses (seeded).
#
#   experiment.sh PIPEC SOURCE_DIR   (PIPEC_VENV: torch, accelerate, numpy)
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
unset PYTHONPATH              # the `pipe` module must come from the bundle

ok=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipec-e2e-experiment.XXXXXX")
# Committed artifacts are read-only folders (docs/runtime.md): writable again before rm.
trap '[ "$ok" = 1 ] && chmod -R u+w "$tmp" && rm -rf "$tmp" || echo "(files left in $tmp)" >&2' EXIT
cp -r "$src/examples/experiment" "$tmp/example"

echo "== pipec check -Werror, fmt --check, build"
"$pipec" check "$tmp/example/experiment.pipe" -Werror
"$pipec" fmt --check "$tmp/example/experiment.pipe"
"$pipec" build "$tmp/example/experiment.pipe" -o "$tmp/bundle" --target local
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$tmp/bundle" -B "$tmp/bundle/build" "${generator[@]}" >"$tmp/cmake.log" 2>&1 ||
    { tail -30 "$tmp/cmake.log"; fail "cmake configure"; }
"$cmake" --build "$tmp/bundle/build" >>"$tmp/cmake.log" 2>&1 || { tail -30 "$tmp/cmake.log"; fail "cmake build"; }
grep -q "openblas" "$tmp/bundle/build/CMakeCache.txt" || fail "OpenBLAS was not found through pkg-config"
exe=$tmp/bundle/build/experiment
store=$tmp/store

echo "== run"
"$exe" run --store "$store" --run-id first >"$tmp/run.log" 2>&1 || { tail -40 "$tmp/run.log"; fail "the run failed"; }
run=$store/first
for inv in prep standardize train evaluate; do
    grep -q "^status: done" "$run/$inv/step.yaml" || { cat "$run/$inv/log"; fail "$inv did not succeed"; }
done
grep -q "\[rank 0\] 2400 points, 12 features, 4 classes; 2 processes, DistributedType.MULTI_CPU" "$run/train/log" ||
    { cat "$run/train/log"; fail "Accelerate did not see 2 CPU processes"; }
grep -q "standard deviations .* largest correlation" "$run/standardize/log" || fail "standardize logged nothing"
"$venv/bin/python" - "$run" <<'PY' || fail "the run's metrics or media are not what the scripts logged"
import json, os, sys
import yaml

run = sys.argv[1]
def series(inv, name):
    rows = [l.rstrip("\n").split(",") for l in open(os.path.join(run, inv, "metrics.csv"))][1:]
    return [(int(r[1]), float(r[2])) for r in rows if r[0] == name]

# accelerator.log({"loss": ..., "train_accuracy": ...}, step=epoch), 8 epochs
loss = series("train", "loss")
assert [s for s, _ in loss] == list(range(8)), loss
assert loss[-1][1] < loss[0][1] / 2, loss
assert len(series("train", "train_accuracy")) == 8
metrics = yaml.safe_load(open(os.path.join(run, "evaluate", "step.yaml")))["metrics"]
assert metrics["accuracy"] >= 0.85, metrics
assert "test_loss" in metrics, metrics

media = os.path.join(run, "evaluate", "media")
entries = [json.loads(l) for l in open(os.path.join(media, "index.jsonl"))]
kinds = {(e["kind"], e["name"]): e for e in entries}
assert set(kinds) == {("image", "confusion_matrix"), ("table", "per_class")}, entries
png = open(os.path.join(media, kinds["image", "confusion_matrix"]["file"]), "rb").read()
assert png.startswith(b"\x89PNG\r\n\x1a\n"), png[:16]
width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
assert (width, height) == (4 * 96 + 2, 4 * 56 + 2), (width, height)  # 4 x 4 cells (confusion.py)
table = json.load(open(os.path.join(media, kinds["table", "per_class"]["file"])))
assert table["columns"] == ["class", "support", "precision", "recall"], table
assert [r[0] for r in table["rows"]] == [0, 1, 2, 3] and sum(r[1] for r in table["rows"]) == 600, table
print("loss %.4f -> %.4f, test accuracy %.4f" % (loss[0][1], loss[-1][1], metrics["accuracy"]))
PY

echo "== report"
"$exe" report first --store "$store" >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "report failed"; }
"$venv/bin/python" "$src/tests/report/check_report.py" "$run/report.html" --charts 1 --images 1 \
    --text "Pipeline experiment run first" --text "max_feature_correlation" --text "train_accuracy" \
    --text "confusion_matrix" --text "per_class" --text "precision" ||
    fail "the report does not show the run, its image and its table"

echo "== parameters: another lr runs train and evaluate again; the same one gives the same losses"
"$exe" run --store "$store" --run-id lr --param lr=0.002 >"$tmp/run2.log" 2>&1 ||
    { tail -40 "$tmp/run2.log"; fail "the run with lr=0.002 failed"; }
for inv in prep standardize; do
    grep -q "^status: cached" "$store/lr/$inv/step.yaml" || fail "$inv was not cached"
done
for inv in train evaluate; do
    grep -q "^status: done" "$store/lr/$inv/step.yaml" || fail "$inv did not run again with another lr"
done
cmp -s <(cut -d, -f1-3 "$run/train/metrics.csv") <(cut -d, -f1-3 "$store/lr/train/metrics.csv") &&
    fail "lr=0.002 trained exactly as lr=0.01: the parameter did not reach train.py"
"$exe" run --store "$store" --run-id again --no-cache >"$tmp/run3.log" 2>&1 || fail "the run with --no-cache failed"
cmp <(cut -d, -f1-3 "$run/train/metrics.csv") <(cut -d, -f1-3 "$store/again/train/metrics.csv") ||
    fail "the same parameters gave other losses: the example is not deterministic"

echo "== the two runs compared"
"$exe" report first lr --store "$store" -o "$tmp/compare.html" >"$tmp/compare.log" 2>&1 ||
    { cat "$tmp/compare.log"; fail "report first lr failed"; }
"$venv/bin/python" "$src/tests/report/check_report.py" "$tmp/compare.html" --images 2 \
    --text "lr" --text "0.002" --text "loss" --text "confusion_matrix" --text "per_class" ||
    fail "the comparison does not show both runs"

ok=1
echo "experiment example: ok"
