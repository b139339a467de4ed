#!/usr/bin/env bash
# Command steps end to end through pipec, CMake and the bundle's `step`:
# arguments with spaces, quotes and $(...) reach the program intact and
# inert; the environment; a folder output, its digest, caching and use as
# an input; PIPE_METRICS; a missing output; one written as path.npy; a
# program not found;
# torch.distributed (env://, gloo) over 4 CPU ranks; a Python exception in
# rank 1; Accelerate's mixed precision; Accelerate's save_state from 2 ranks
# into one output folder; a program on two machines (machine 0's folder is
# the artifact); outputs holding links or hard links to files elsewhere; a
# large output of an odd size, its digest the file's SHA-256.
set -u
# shellcheck source=tests/command/lib.sh
. "$(dirname "$0")/lib.sh"
build_bundle "$src_dir/commands.pipe" commands -DPIPE_WITH_CUDA=OFF
store="$work/store"
run() { "$exe" step "$1" --run-id "${2:-R}" --store "$store" "${@:3}" >"$work/$1-${2:-R}.out" 2>&1; }
field() { sed -n "s/^$2: //p" "$store/${3:-R}/$1/step.yaml" | head -1; }
rm -f "$work/pwned"

# 1. Arguments and environment: no shell between the program and its values.
tricky="a b \"c\" 'd' \$(touch $work/pwned) ; * \`id\`"
PIPE_TEST_BODY=caller run echo R --param "text=$tricky"
# shellcheck disable=SC2320 # $? is run's status: shellcheck takes `run echo` for bats' run of echo
check "[ $? = 0 ]" "echo: succeeds"
out="$store/R/echo/outputs/out"
check "[ \"\$(json '$out' 'd[\"argv\"][0]')\" = \"\$tricky\" ]" "echo: {text} reaches argv intact"
check "[ \"\$(json '$out' 'd[\"PIPE_PARAM_TEXT\"]')\" = \"\$tricky\" ]" "echo: PIPE_PARAM_TEXT intact"
check "[ \"\$(json '$out' 'd[\"argv\"][1]')\" = 'literal {braces}' ]" "echo: {{ }} are literal braces"
check "[ ! -e '$work/pwned' ]" "echo: \$(...) in a value ran nothing"
check "[ \"\$(json '$out' 'd[\"argv\"][3] == d[\"PIPE_OUTPUT_OUT\"]')\" = True ]" "echo: {out} is PIPE_OUTPUT_OUT"
check "[ \"\$(json '$out' 'd[\"cwd\"]')\" = '$work/commands/src/user' ]" "echo: runs in the bundle's copy of the .pipe folder"
check "[ \"\$(json '$out' 'd[\"helper\"]')\" = 'shipped with the folder' ]" "echo: a shipped folder's files are there"
check "[ \"\$(json '$out' 'd[\"PIPE_TEST_BODY\"]')\" = body ]" "echo: the body's environment wins over the caller's"
check "[ \"\$(json '$out' 'd[\"PIPE_TEST_IMAGE\"]')\" = None ]" "echo: @docker(environment) is the image's: a local run does not set it"
check "[ \"\$(json '$out' 'd[\"scratch_empty\"]')\" = True ]" "echo: PIPE_SCRATCH_DIR is an empty folder"
check "[ ! -e \"\$(json '$out' 'd[\"PIPE_SCRATCH_DIR\"]')\" ]" "echo: PIPE_SCRATCH_DIR is removed afterwards"

# 2. A folder output: committed whole, digested, cached, read as an input.
run save_folder R
check "[ $? = 0 ]" "save_folder: succeeds"
check "[ -f '$store/R/save_folder/outputs/model/shards/shard-2.bin' ]" "save_folder: the folder is in the store"
check "[ -z \"\$(ls -A '$store/R/save_folder/outputs' | grep tmp)\" ]" "save_folder: no temporary name left"
check "grep -q 'model: {path: .*sha256: [0-9a-f]\\{64\\}}' '$store/R/save_folder/step.yaml'" "save_folder: the folder's digest is recorded"
check "grep -q '^loss,1,0.25,' '$store/R/save_folder/metrics.csv' && grep -q '^shards,0,3,' '$store/R/save_folder/metrics.csv'" \
    "save_folder: PIPE_METRICS lines (NAME STEP VALUE, NAME VALUE, a last line without newline) become metrics"
check "grep -q 'PIPE_METRICS line 3 ignored (expected NAME VALUE or NAME STEP VALUE): this line is not a metric' '$store/R/save_folder/log'" \
    "save_folder: a bad PIPE_METRICS line is named in the log"
check "grep -q 'loss: 0.25' '$store/R/save_folder/step.yaml'" "save_folder: the last value of each metric in step.yaml"
check "grep -q '^tiny,0,1e-320,' '$store/R/save_folder/metrics.csv'" "save_folder: a subnormal value (1e-320) is kept"
check "grep -q 'PIPE_METRICS line 5 ignored (the step is above 9223372036854775807): big 99999999999999999999999 1' '$store/R/save_folder/log' &&
    ! grep -q '^big,' '$store/R/save_folder/metrics.csv'" "save_folder: a step past INT64_MAX is skipped with a warning, not clamped"
check "[ \"\$(grep -c '^twice,0,' '$store/R/save_folder/metrics.csv')\" = 2 ]" "save_folder: a step given twice keeps both points"
run read_folder R
check "[ $? = 0 ] && grep -q 'n=3 shards=shard-0.bin,shard-1.bin,shard-2.bin' '$store/R/read_folder/outputs/summary'" \
    "read_folder: a folder input, by {model} and PIPE_INPUT_MODEL"
run save_folder R2
check "[ $? = 0 ] && [ \"\$(field save_folder status R2)\" = cached ] && [ -f '$store/R2/save_folder/outputs/model/config.json' ]" \
    "save_folder: a second run is cached, the folder reused"
run save_folder R3 --param n=2
check "[ $? = 0 ] && [ \"\$(field save_folder status R3)\" = done ]" "save_folder: another parameter runs again"

# 2b. A large output of an odd size, hashed while it is synced and moved
# (store/hash_pipeline.c): step.yaml's digest is the file's SHA-256.
run big_blob R
check "[ $? = 0 ] && [ \"\$(field big_blob status)\" = done ]" "big_blob: succeeds"
big="$store/R/big_blob/outputs/out"
check "[ \"\$(stat -c %s '$big')\" = 5242883 ] &&
    grep -q \"sha256: \$(sha256sum < '$big' | cut -c1-64)\" '$store/R/big_blob/step.yaml'" \
    "big_blob: the recorded digest is sha256sum's"
check "[ -z \"\$(ls -A '$store/R/big_blob/outputs' | grep -v '^out\$')\" ]" "big_blob: no note or temporary name left"

# 3. A program that exits 0 without writing its output fails, naming it.
run forget_output R
check "[ $? = 1 ] && grep -q 'did not write output .out.' '$store/R/forget_output/step.yaml'" \
    "forget_output: fails naming output out"
check "[ -z \"\$(ls -A '$store/R/forget_output/outputs' 2>/dev/null)\" ]" "forget_output: no output left"

# 3b. np.save(path, a) writes path.npy: the failure names what was written
# and how to write the exact path; an open file is the exact path. Any other
# single path.EXT gets the general hint.
run np_save N1 --param text=plain
check "[ $? = 1 ] && grep -q 'wrote the path in {out} with .\\.npy. added' '$work/np_save-N1.out' &&
    grep -q 'help: write the exact path (PIPE_OUTPUT_OUT), np.save appends .npy' '$work/np_save-N1.out' &&
    grep -qF 'np.save(open(path, ' '$store/N1/np_save/step.yaml' &&
    [ -z \"\$(ls -A '$store/N1/np_save/outputs' 2>/dev/null)\" ]" \
    "np_save plain: names path.npy and how to write the exact path ($(head -3 "$work/np_save-N1.out" | tr '\n' ' '))"
run np_save N2 --param text=file
check "[ $? = 0 ] && [ \"\$(field np_save status N2)\" = done ]" "np_save file: the exact path is the output"
run suffixed N1
check "[ $? = 1 ] && grep -q 'wrote the path in {out} with .\\.csv. added' '$work/suffixed-N1.out' &&
    grep -q 'without adding an extension' '$work/suffixed-N1.out'" "suffixed: names path.csv"

# 4. A program that is not found fails naming the step and the program.
run not_found R
check "[ $? = 1 ] && grep -q 'step .not_found. runs .pythn3., which was not found' '$work/not_found-R.out'" \
    "not_found: names the step and the program"

# 5. torch.distributed with env:// over 4 CPU ranks: an all-reduce.
run allreduce R
check "[ $? = 0 ]" "allreduce: succeeds ($(tail -3 "$work/allreduce-R.out" | tr '\n' ' '))"
out="$store/R/allreduce/outputs/out"
check "[ \"\$(json '$out' 'd[\"sum\"]')\" = 10.0 ] && [ \"\$(json '$out' 'd[\"world\"]')\" = 4 ]" "allreduce: 4 ranks sum to 10"
check "[ \"\$(json '$out' 'd[\"env\"][\"GROUP_WORLD_SIZE\"], d[\"env\"][\"ROLE_NAME\"], d[\"env\"][\"TORCHELASTIC_RUN_ID\"]')\" = '1 default R/allreduce' ]" \
    "allreduce: torchrun's GROUP_WORLD_SIZE, ROLE_NAME, TORCHELASTIC_RUN_ID"
check "[ \"\$(json '$out' 'd[\"env\"][\"TORCHELASTIC_USE_AGENT_STORE\"], d[\"env\"][\"PIPE_RDZV_PORT\"]')\" = 'None None' ]" \
    "allreduce: no TORCHELASTIC_USE_AGENT_STORE, no pipe rendezvous for a program"
check "[ \"\$(json '$out' 'd[\"env\"][\"ACCELERATE_USE_CPU\"], repr(d[\"env\"][\"CUDA_VISIBLE_DEVICES\"])')\" = \"true ''\" ]" \
    "allreduce: cpu = true: ACCELERATE_USE_CPU=true, CUDA_VISIBLE_DEVICES empty"
check "[ \"\$(json '$out' 'd[\"env\"][\"OMP_NUM_THREADS\"]')\" = 1 ]" "allreduce: OMP_NUM_THREADS from cpu / local ranks"

# 6. A Python exception in rank 1: the step fails naming rank 1, with the traceback's last lines.
run raises R
status=$?
check "[ $status = 1 ]" "raises: status 1 (got $status)"
check "grep -q 'rank 1 (machine 0, host .*) .python3. exited with status 1' '$store/R/raises/step.yaml'" "raises: names rank 1"
check "grep -q 'ValueError: shard 1 is corrupt' '$store/R/raises/step.yaml'" "raises: the traceback's last line"
check "grep -q 'in check_shard' '$store/R/raises/step.yaml'" "raises: the traceback's frames"
check "grep -q 'ValueError: shard 1 is corrupt' '$work/raises-R.out'" "raises: shown on the console"

# 7. The mixed precision reaches Accelerate, which computes in it.
run precision R
check "[ $? = 0 ]" "precision: succeeds ($(tail -3 "$work/precision-R.out" | tr '\n' ' '))"
out="$store/R/precision/outputs/out"
check "[ \"\$(json '$out' 'd[\"mixed_precision\"], d[\"inner_dtype\"], d[\"num_processes\"]')\" = 'bf16 torch.bfloat16 2' ]" \
    "precision: Accelerate runs bf16 over 2 processes"
check "[ \"\$(json '$out' 'd[\"distributed_type\"]')\" = DistributedType.MULTI_CPU ]" "precision: Accelerate sees a multi-CPU launch"

# 8. Accelerate's save_state from 2 ranks: every rank writes into the same
#    output folder, as under torchrun, and all of it is committed (rank 1's
#    RNG state was once dropped with its scratch folder), read-only.
run save_state R
check "[ $? = 0 ]" "save_state: succeeds ($(tail -3 "$work/save_state-R.out" | tr '\n' ' '))"
state="$store/R/save_state/outputs/state"
check "[ -f '$state/random_states_0.pkl' ] && [ -f '$state/random_states_1.pkl' ]" \
    "save_state: both ranks' RNG states are in the artifact ($(find "$state" -mindepth 1 -printf '%f ' 2>/dev/null))"
check "ls '$state' | grep -q '^model.*safetensors\|^pytorch_model' && ls '$state' | grep -q '^optimizer'" \
    "save_state: rank 0's model and optimizer are in the artifact"
check "[ -z \"\$(find '$state' -perm /222)\" ]" "save_state: the committed folder and its files are read-only"
check "[ \"\$(field save_state status)\" = done ] && [ -z \"\$(ls -A '$store/R/save_state/outputs' | grep tmp)\" ]" \
    "save_state: done, no temporary name left"

# 9. Two machines on one host: each machine's ranks write into that
#    machine's own folder; machine 0's is committed, whether or not the
#    store is shared, and machine 1's is removed.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for shared in yes no; do
    store1=$store
    [ $shared = yes ] || store1="$work/store-machine-1"
    MASTER_PORT=$port "$exe" step machines --run-id "M$shared" --store "$store1" --machine-rank 1 --no-cache \
        --main-process-ip 127.0.0.1 >"$work/machines-$shared-1.out" 2>&1 &
    machine1=$!
    MASTER_PORT=$port "$exe" step machines --run-id "M$shared" --store "$store" --machine-rank 0 --no-cache \
        --main-process-ip 127.0.0.1 >"$work/machines-$shared-0.out" 2>&1
    status0=$?
    wait "$machine1"
    status1=$?
    out="$store/M$shared/machines/outputs/out"
    check "[ $status0 = 0 ] && [ $status1 = 0 ]" "machines (shared store: $shared): both machines succeed ($status0, $status1)"
    check "[ \"\$(cd '$out' 2>/dev/null && cat rank-0 rank-1 | tr '\\n' ' ')\" = 'machine 0 machine 0 ' ] && [ ! -e '$out/rank-2' ] && [ ! -e '$out/rank-3' ]" \
        "machines (shared store: $shared): the artifact holds machine 0's ranks' files, and only theirs ($(find "$out" -mindepth 1 -printf '%f ' 2>/dev/null))"
    elsewhere=$(sed -n 's/.*rank 3 of machine 1 wrote into //p' "$store1/M$shared/machines/log.machine-1")
    check "[ -n '$elsewhere' ] && [ \"\${elsewhere#\"$store1\"}\" = '$elsewhere' ] && [ ! -e '$elsewhere' ]" \
        "machines (shared store: $shared): machine 1 wrote outside the store ($elsewhere), and that folder is gone"
    check "grep -q 'rank 1 of machine 0 wrote into $store/M$shared/machines/outputs/.out.tmp$' '$store/M$shared/machines/log'" \
        "machines (shared store: $shared): machine 0's ranks ran and wrote into the store"
    check "[ -z \"\$(ls -A '$store1/M$shared/machines/outputs' | grep -v '^out\$')\" ]" \
        "machines (shared store: $shared): nothing else in outputs/"
done

# 10. What an output may hold: a link to /etc/passwd as the output, a link
#     leading out of its folder (absolute, or by ..), a hard link to a file
#     outside are refused, naming the step, the output and the entry, and
#     nothing is kept (once recorded done, a consumer reading v1 through the
#     link after the file became v2). A link inside is fine; the committed
#     folder is read-only, and a second run's cached copy shares only
#     read-only files with the first.
for mode in passwd absolute up hard; do
    run leak "L$mode" --param "text=$mode"
    status=$?
    check "[ $status = 1 ] && [ \"\$(field leak status L$mode)\" = failed ]" "leak $mode: the step fails (status $status)"
    check "[ ! -e '$store/L$mode/leak/outputs' ]" "leak $mode: nothing kept"
done
check "grep -q 'step .leak.: output .out. cannot be kept: out is a symbolic link (to ./etc/passwd.)' '$work/leak-Lpasswd.out'" \
    "leak passwd: names the step, the output and the link"
check "grep -q 'out/current is a symbolic link to .$store/elsewhere-absolute., which is an absolute link' '$work/leak-Labsolute.out'" \
    "leak absolute: names the link and where it leads"
check "grep -q 'out/sub/current is a symbolic link to .../../elsewhere., which goes above the top' '$work/leak-Lup.out'" \
    "leak up: names the link that climbs out"
check "grep -q 'out/copy is a hard link to a file outside out (2 links, 1 inside)' '$work/leak-Lhard.out'" \
    "leak hard: names the hard link"
run leak L1 --param text=inside
check "[ $? = 0 ] && [ \"\$(cat '$store/L1/leak/outputs/out/current')\" = v1 ]" "leak inside: a link inside the output is kept"
run leak L2 --param text=inside
check "[ $? = 0 ] && [ \"\$(field leak status L2)\" = cached ]" "leak inside: a second run is cached"
check "[ \"\$(stat -c %i '$store/L1/leak/outputs/out/v1')\" = \"\$(stat -c %i '$store/L2/leak/outputs/out/v1')\" ]" \
    "leak inside: the cached copy is a hard link"
check "[ -z \"\$(find '$store/L1/leak/outputs/out' '$store/L2/leak/outputs/out' -perm /222 ! -type l)\" ]" \
    "leak inside: both runs' artifacts are read-only, folders and files"

finish
