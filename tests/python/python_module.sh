#!/usr/bin/env bash
# The `pipe` Python module in real command steps (python.pipe, docs/python.md):
#   - api: param() typed as declared, input_path, output_path (a file and a
#     folder), log_metric with and without a step, log_image from bytes and
#     from a path, log_table from dicts and from lists with columns=,
#     checkpoint_dir/latest_checkpoint without @checkpoint, the errors
#     (ValueError for a bad metric name, PipeError for an unknown
#     parameter); the bundle's python/ first on PYTHONPATH, the user's kept;
#   - ckpt: under @checkpoint, no checkpoint on the first execution, the
#     folder it wrote as latest_checkpoint() on the next;
#   - tracker: Accelerator(log_with=PipeTracker()) over 2 CPU ranks,
#     accelerator.log reaching metrics.csv (rank 0's, strings skipped, a
#     name with a space sanitized), the config as a table, log_image a
#     no-op on rank 1;
#   - tensorboard: torch's SummaryWriter in the scratch folder
#     (simple_value) and in an output folder (the tensor form), read into
#     metrics.csv; text and histograms left out;
#   - outside a step every function raises, naming the variable missing;
#   - the module is installed with the executable and in the Dockerfile.
set -u
# shellcheck source=tests/command/lib.sh
. "$(dirname "$0")/../command/lib.sh"
if ! "$venv/bin/python" -c 'import tensorboard' 2>/dev/null; then
    echo "FAIL: no tensorboard in $venv: run scripts/install-deps.sh"
    exit 1
fi
build_bundle "$src_dir/python.pipe" pymod -DPIPE_WITH_CUDA=OFF
bundle="$work/pymod"
store="$work/store"

PYTHONPATH=/user/lib PIPE_TEST_FAIL=1 "$exe" run --store "$store" --run-id one >"$work/one.out" 2>&1
check "[ $? = 1 ]" "the first run fails in ckpt only (PIPE_TEST_FAIL), as planned"
check "grep -q 'stopping after the first checkpoint' '$store/one/ckpt/log'" "ckpt stopped after its checkpoint"
run="$store/one"

# --- api ---
out="$run/api/outputs/out"
check "[ \"\$(json '$out' 'd[\"lr\"], d[\"epochs\"], d[\"fast\"], d[\"label\"]')\" = '0.25 3 True two words' ]" \
    "param() gives the values ($(json "$out" 'd["lr"], d["epochs"], d["fast"], d["label"]'))"
check "[ \"\$(json '$out' '\" \".join(d[\"types\"])')\" = 'float int bool str' ]" "param() types them as declared"
check "[ \"\$(json '$out' 'd[\"data\"]')\" = hello ]" "input_path() reads the upstream output"
check "[ -f '$run/api/outputs/model/weights.txt' ]" "output_path() of a folder output was committed"
check "[ \"\$(json '$out' 'd[\"checkpoint_dir\"], d[\"latest\"]')\" = 'None None' ]" \
    "no @checkpoint: checkpoint_dir() and latest_checkpoint() are None"
check "[ \"\$(json '$out' 'd[\"pythonpath\"]')\" = '$bundle/python:/user/lib' ]" \
    "PYTHONPATH is the bundle's python/ then the user's ($(json "$out" 'd["pythonpath"]'))"
check "[ \"\$(json '$out' 'd[\"module\"]')\" = '$bundle/python/pipe/__init__.py' ]" "the module is the bundle's"
errs=$(json "$out" '"\n".join(f"{k}: {v}" for k, v in d["errors"].items())')
for want in "no_param: PipeError: step has no parameter \`nope\` (PIPE_PARAM_NOPE is not set)" \
    "bad_name: ValueError: bad metric name 'a b'" "comma: ValueError: bad metric name 'a,b'" \
    "not_number: ValueError: value of metric 'x': 'abc' is not a number" \
    "bad_step: ValueError: step -1 is not a whole number" \
    "huge_step: ValueError: step 9223372036854775808 is above 9223372036854775807" "not_image: ValueError: image 'x' is neither PNG nor JPEG" \
    "ragged: ValueError: table 't': row 0 does not have the 1 cells"; do
    check "grep -qF \"\$want\" <<<\"\$errs\"" "error: $want (got: $errs)"
done
metrics=$(tail -n +2 "$run/api/metrics.csv" | cut -d, -f1-3 | tr '\n' ' ')
check "[ '$metrics' = 'loss,0,0.9 loss,1,0.5 loss,2,0.25 accuracy,10,0.75 accuracy,20,0.875 ' ]" \
    "log_metric without and with a step reaches metrics.csv ($metrics)"
media="$run/api/media"
index=$("$venv/bin/python" - "$media" <<'PY'
import json, os, sys
media = sys.argv[1]
out = []
for line in open(os.path.join(media, "index.jsonl")):
    e = json.loads(line)
    data = open(os.path.join(media, e["file"]), "rb").read()
    extra = data[:8] == b"\x89PNG\r\n\x1a\n" if e["kind"] == "image" else json.loads(data)
    ok = set(e) == {"kind", "name", "step", "file", "time_s"} and isinstance(e["time_s"], float)
    ok = ok and all(c.isalnum() or c in "_.-/" for c in e["file"])
    out.append(f'{e["kind"]}|{e["name"]}|{e["step"]}|{e["file"].split("/")[0]}|{extra}|{ok}')
print("\n".join(out))
PY
)
# shellcheck disable=SC2034 # read by check's eval
want_index="image|sample|1|images|True|True
image|from file|None|images|True|True
table|predictions|None|tables|{'columns': ['id', 'label', 'p', 'ok'], 'rows': [[1, 'cat', 0.9, True], [2, 'dog', 0.4, None]]}|True
table|confusion|3|tables|{'columns': ['pred cat', 'pred dog'], 'rows': [[5, 1], [2, 7]]}|True"
check "[ \"\$index\" = \"\$want_index\" ]" "media/index.jsonl and its files: images (bytes, path), tables (dicts, lists); got:
$index"
check "[ -z \"\$(find '$media' -name '.*')\" ]" "no temporary file is left in media/"

# --- tracker (2 ranks) ---
t="$run/tracker"
got=$(tail -n +2 "$t/metrics.csv" | cut -d, -f1-3 | sort | tr '\n' ' ')
want="epoch_time,0,0 epoch_time,1,0.5 epoch_time,2,1 epoch_time,3,1.5 rank,0,0 rank,1,0 rank,2,0 rank,3,0 train/loss,0,1 train/loss,1,0.5 train/loss,2,0.3333333432674408 train/loss,3,0.25 "
check "[ '$got' = '$want' ]" "accelerator.log reaches metrics.csv, rank 0's only, text skipped, a space made _ ($got)"
check "[ \"\$(cut -d'\"' -f4,8 --output-delimiter='|' '$t/media/index.jsonl' | tr '\n' ' ')\" = 'table|config image|per rank ' ]" \
    "the config is a table, and rank 1's log_image did nothing ($(tr '\n' ' ' <"$t/media/index.jsonl"))"
cfg=$(json "$t/media/$(sed -n 's/.*"file": "\(tables[^"]*\)".*/\1/p' "$t/media/index.jsonl")" 'd["rows"]')
check "[ \"\$cfg\" = \"[['lr', 0.1], ['optimizer', 'sgd'], ['epochs', 4]]\" ]" "the config table holds the values ($cfg)"
check "grep -q 'rank 1 image None' '$t/log'" "log_image returns None on rank 1"

# --- tensorboard ---
got=$(tail -n +2 "$run/tensorboard/metrics.csv" | cut -d, -f1-3 | sort | tr '\n' ' ')
want="eval/acc,7,0.5 eval/acc,8,0.625 tb/loss,0,1 tb/loss,1,0.5 tb/loss,2,0.3333333432674408 tb/loss,3,0.25 tb/loss,4,0.20000000298023224 "
check "[ '$got' = '$want' ]" "SummaryWriter's scalars (both forms) reach metrics.csv, text and histograms left out ($got)"
check "grep -q 'TensorBoard: 7 scalars from 2 event files into metrics.csv' '$run/tensorboard/log'" "the log says what was read"
check "grep -q 'tb/loss=0.2' '$work/one.out'" "the run's summary shows a TensorBoard metric"

# --- checkpoint: the next run finds the first's checkpoint ---
"$exe" run --store "$store" --run-id two >"$work/two.out" 2>&1
check "[ $? = 0 ]" "the second run succeeds"
ck="$store/two/ckpt/outputs/out"
check "[ -f '$ck' ] && [ \"\$(json '$ck' 'd[\"latest\"]')\" = \"\$(json '$ck' 'd[\"dir\"]')/epoch_1\" ]" \
    "latest_checkpoint() is the folder the stopped execution wrote ($(cat "$ck" 2>/dev/null))"

# --- outside a step ---
for call in "param('lr')|PIPE_PARAM_LR" "input_path('data')|PIPE_INPUT_DATA" "output_path('out')|PIPE_OUTPUT_OUT" \
    "log_metric('loss', 1)|PIPE_METRICS" "log_image('x', b'')|PIPE_METRICS" "log_table('t', [])|PIPE_METRICS" \
    "checkpoint_dir()|PIPE_INVOCATION" "latest_checkpoint()|PIPE_INVOCATION"; do
    said=$(env -i PATH="$PATH" PYTHONPATH="$bundle/python" "$venv/bin/python" -c "import pipe; pipe.${call%|*}" 2>&1)
    check "grep -q \"pipe.PipeError: ${call#*|} is not set: the pipe module must run inside a pipe step\" <<<\"\$said\"" \
        "outside a step, ${call%|*} says so: $said"
done
said=$(env -i PATH="$PATH" PYTHONPATH="$bundle/python" python3 -c 'import sys, pipe; print(sorted(m for m in sys.modules if m in ("accelerate", "torch")))' 2>&1)
check "[ '$said' = '[]' ]" "import pipe imports neither accelerate nor torch ($said)"

# --- installed, and in the image ---
cmake --install "$bundle/build" --prefix "$work/prefix" >/dev/null 2>&1
check "[ -f '$work/prefix/share/pipe/pymod/python/pipe/__init__.py' ] && [ -f '$work/prefix/share/pipe/pymod/python/pipe/accelerate.py' ]" \
    "cmake --install puts the module beside the executable's files"
"$pipec" build "$src_dir/python.pipe" -o "$work/docker" --target docker >/dev/null 2>&1
df=$(find "$work/docker/docker" -name Dockerfile | head -1)
# shellcheck disable=SC2016,SC2034 # the Dockerfile's own ${PYTHONPATH:+...}, as written; read by check's eval
env_line='ENV PYTHONPATH="/opt/pipe/share/pipe/pymod/python${PYTHONPATH:+:$PYTHONPATH}"'
check "grep -q '^COPY python/ python/' '$df' && grep -qxF \"\$env_line\" '$df' && grep -q '^COPY --from=build /opt/pipe/share/pipe/pymod ' '$df'" \
    "the Dockerfile copies the module into the image and puts it on PYTHONPATH"
finish
