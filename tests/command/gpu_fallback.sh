#!/usr/bin/env bash
# A multi-GPU step on a machine without a usable GPU (CUDA_VISIBLE_DEVICES=""
# hides any this machine has) stays one training: the ranks of an
# Accelerate program and of a native step get the launch of cpu = true and
# form one process group of 2, with one warning naming each step, and the
# cache key's device says cpu; --strict-resources refuses. Then, with
# mixed_precision changed, the program runs again and the progress line,
# step.yaml, `show`, `show --json` and the report say why; the native step
# is cached.
set -u
# shellcheck source=tests/command/lib.sh
. "$(dirname "$0")/lib.sh"
export CUDA_VISIBLE_DEVICES=""
# A copy of the .pipe file and its sources, so that one setting can change.
mkdir -p "$work/pipe/scripts" "$work/pipe/src"
cp "$src_dir/gpu_fallback.pipe" "$work/pipe/"
cp "$src_dir/scripts/accelerate_precision.py" "$work/pipe/scripts/"
cp "$src_dir/src/fallback_native.c" "$work/pipe/src/"
build_bundle "$work/pipe/gpu_fallback.pipe" gpu_fallback -DPIPE_WITH_CUDA=OFF
store="$work/store"
field() { sed -n "s/^$3: //p" "$store/$1/$2/step.yaml" | head -1; }

# 1. --strict-resources refuses before anything runs.
"$exe" run --run-id R0 --store "$store" --strict-resources >"$work/r0.out" 2>&1
status=$?
check "[ $status = 2 ] && grep -q 'accelerate_group requests 2 GPUs (this machine has 0), and --strict-resources refuses' '$work/r0.out'" \
    "--strict-resources refuses (status $status)"

# 2. One process group of 2 on the CPU, for a program and for a native step.
"$exe" run --run-id R1 --store "$store" >"$work/r1.out" 2>&1
status=$?
check "[ $status = 0 ]" "run R1 succeeds ($(tail -3 "$work/r1.out" | tr '\n' ' '))"
out="$store/R1/accelerate_group/outputs/out"
check "[ \"\$(json '$out' 'd[\"num_processes\"], d[\"distributed_type\"], d[\"total\"], d[\"device\"].split(\":\")[0]')\" = '2 DistributedType.MULTI_CPU 2.0 cpu' ]" \
    "accelerate_group: one MULTI_CPU process group of 2 ($(cat "$out" 2>/dev/null))"
check "[ \"\$(json '$out' 'd[\"mixed_precision\"]')\" = bf16 ]" "accelerate_group: bf16 as asked"
check "[ \"\$(grep -c 'warning: step .accelerate_group. asks for 2 GPUs (@resources(gpu = 2)) but this machine has no usable GPU: CUDA_VISIBLE_DEVICES=\"\" hides them all; its 2 ranks run on the CPU as one process group' '$work/r1.out')\" = 1 ]" \
    "accelerate_group: one warning naming the step"
check "[ \"\$(grep -c 'warning: step .native_group. asks for' '$work/r1.out')\" = 1 ]" "native_group: one warning naming the step"
native="$store/R1/native_group/outputs/out"
check "grep -qx 'world=2 sum=3 CUDA_VISIBLE_DEVICES=\"\" ACCELERATE_USE_CPU=true PIPE_COLL_BACKEND=cpu' '$native'" \
    "native_group: 2 ranks all-reduce on the CPU collectives ($(cat "$native" 2>/dev/null))"
check "grep -q '^  device: \"cpu\"$' '$store/R1/accelerate_group/step.yaml'" "the key's device is cpu"
check "grep -q '^  mixed_precision: \"bf16\"$' '$store/R1/accelerate_group/step.yaml'" "step.yaml records the key's parts"

# 3. The same again: both cached, nothing said about a re-run.
"$exe" run --run-id R2 --store "$store" >"$work/r2.out" 2>&1
check "[ $? = 0 ] && [ \"\$(field R2 accelerate_group status)\" = cached ] && [ \"\$(field R2 native_group status)\" = cached ]" \
    "run R2: both cached"
check "! grep -q 're-running\\|running again' '$work/r2.out'" "run R2: no re-run"

# 4. mixed_precision changed: the program runs again and says why.
sed -i 's/mixed_precision = "bf16"/mixed_precision = "no"/' "$work/pipe/gpu_fallback.pipe"
build_bundle "$work/pipe/gpu_fallback.pipe" gpu_fallback -DPIPE_WITH_CUDA=OFF
"$exe" run --run-id R3 --store "$store" >"$work/r3.out" 2>&1
status=$?
check "[ $status = 0 ] && [ \"\$(field R3 accelerate_group status)\" = done ] && [ \"\$(field R3 native_group status)\" = cached ]" \
    "run R3: accelerate_group runs again, native_group is cached (status $status)"
check "grep -q '^  accelerate_group  running again: mixed_precision changed (bf16 -> no)$' '$work/r3.out'" \
    "run R3: the progress line says what changed"
check "grep -q 're-running accelerate_group: mixed_precision changed (bf16 -> no) (earlier success: R1/accelerate_group)' '$work/r3.out'" \
    "run R3: the step's log line names the earlier success"
check "[ \"\$(field R3 accelerate_group rerun)\" = '\"mixed_precision changed (bf16 -> no)\"' ] && [ \"\$(field R3 accelerate_group rerun_of)\" = R1/accelerate_group ]" \
    "run R3: step.yaml records why"
"$exe" show R3 --store "$store" >"$work/show.out" 2>&1
check "grep -q '^      re-run   mixed_precision changed (bf16 -> no) (earlier success: R1/accelerate_group)$' '$work/show.out'" \
    "show: the re-run line"
"$exe" show R3 --json --store "$store" >"$work/show.json" 2>&1
check "[ \"\$(json '$work/show.json' '[i[\"rerun\"] for i in d[\"invocations\"]][0]')\" = 'mixed_precision changed (bf16 -> no)' ]" \
    "show --json: rerun"
check "\"\$exe\" report R3 --store '$store' -o '$work/report.html' >/dev/null 2>&1 && grep -q 're-run: mixed_precision changed (bf16 -&gt; no)' '$work/report.html'" \
    "report: the re-run under the status"

finish
