#!/usr/bin/env bash
# A bundle built with CUDA, on this machine: `cpu = true` wins over a GPU
# count (ranks run on the CPU, see CUDA_VISIBLE_DEVICES="", select no GPU)
# for a native step and a program; a step that needs a GPU, where there is
# none, fails before it starts in one line naming the step, what it asked
# for and what was found (NVML's own reason).
set -u
# shellcheck source=tests/command/lib.sh
. "$(dirname "$0")/lib.sh"
build_bundle "$src_dir/cpu_wins.pipe" cpu_wins -DPIPE_WITH_CUDA=ON
check "grep -q 'cpu_wins: CUDA 1' '$work/cpu_wins.cmake.log'" "the bundle is built with CUDA"
store="$work/store"
"$exe" run --run-id R --store "$store" >"$work/run.out" 2>&1
status=$?

native="$store/R/cpu_native/outputs/out"
check "[ -f '$native' ] && grep -q 'world=2 sum=3 CUDA_VISIBLE_DEVICES=\"\" ACCELERATE_USE_CPU=true' '$native'" \
    "cpu_native: 2 CPU ranks, no GPU visible ($(cat "$native" 2>/dev/null))"
check "! grep -q 'cannot select its GPU' '$store/R/cpu_native/log'" "cpu_native: no rank selects a GPU"
out="$store/R/cpu_command/outputs/out"
check "[ -f '$out' ] && [ \"\$(json '$out' 'repr(d[\"env\"][\"CUDA_VISIBLE_DEVICES\"]), d[\"sum\"]')\" = \"'' 3.0\" ]" \
    "cpu_command: the program's ranks see no GPU and all-reduce"
if nvidia-smi -L >/dev/null 2>&1; then
    check "[ $status = 0 ] && [ \"\$(sed -n 's/^status: //p' '$store/R/needs_gpu/step.yaml')\" = done ]" \
        "needs_gpu: this machine has a GPU: it runs"
else
    check "[ $status = 1 ]" "needs_gpu: the run fails (status $status)"
    # shellcheck disable=SC2034 # read by the check below (check evals its text)
    line=$(grep -m1 "step .needs_gpu. asks for 1 GPU" "$work/run.out")
    check "[ -n \"\$line\" ]" "needs_gpu: one line on the console names the step and the GPU asked for"
    check "grep -q 'step .needs_gpu. asks for 1 GPU (@resources(gpu = 1)) but this machine has no usable GPU: NVML' '$store/R/needs_gpu/step.yaml'" \
        "needs_gpu: NVML's reason is recorded ($(sed -n 's/^error: //p' "$store/R/needs_gpu/step.yaml"))"
    check "! grep -q 'the GPU step ran\\|cannot select its GPU' '$store/R/needs_gpu/log'" "needs_gpu: never started"
fi

finish
