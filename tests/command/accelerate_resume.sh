#!/usr/bin/env bash
# Accelerate resumes through @checkpoint (resume.pipe,
# scripts/accelerate_resume.py; docs/checkpoints.md): a 2-rank CPU training
# in bf16 that saves with accelerator.save_state after each epoch is
# stopped by SIGTERM to the runner, then run again. Checks that
#   - the stopped run ends `interrupted` (status 143) and its checkpoint
#     folder holds complete epochs only, each with both ranks' RNG states
#     (random_states_0.pkl and random_states_1.pkl);
#   - the next run resumes from PIPE_CHECKPOINT_LATEST, both ranks' RNG
#     states there, and trains only the epochs that were left;
#   - its final loss and weights are those of an uninterrupted run, bit
#     for bit, and the checkpoint folder is gone after success.
set -u
# shellcheck source=tests/command/lib.sh
. "$(dirname "$0")/lib.sh"
build_bundle "$src_dir/resume.pipe" resume -DPIPE_WITH_CUDA=OFF
epochs=12

# 1. Uninterrupted.
mkdir -p "$work/m0"
"$exe" run --store "$work/s0" --run-id whole --param "marker=$work/m0" --param epoch_ms=300 >"$work/whole.out" 2>&1
check "[ $? = 0 ]" "the uninterrupted run succeeds"
want=$(json "$work/s0/whole/train/outputs/out" 'd["loss"], d["weights"]')

# 2. Stopped by SIGTERM after a few epochs.
store="$work/s1"
mkdir -p "$work/m1"
"$exe" run --store "$store" --run-id stopped --param "marker=$work/m1" --param epoch_ms=300 >"$work/stopped.out" 2>&1 &
runner=$!
for _ in $(seq 1200); do
    [ "$(cat "$work/m1/progress" 2>/dev/null || echo 0)" -ge 2 ] && break
    kill -0 "$runner" 2>/dev/null || break
    sleep 0.05
done
kill -TERM "$runner"
wait "$runner"
status=$?
check "[ $status = 143 ]" "SIGTERM: the run ends with status 143 (not $status)"
check "grep -q 'status: interrupted' '$store/stopped/train/step.yaml'" "SIGTERM: the step is recorded interrupted"
check "grep -q 'received SIGTERM; stopping the step' '$store/stopped/train/log' && grep -q 'stopped after epoch' '$store/stopped/train/log'" \
    "SIGTERM: both ranks were told and stopped after saving"
ckpt=$(find "$store/cache/checkpoints" -mindepth 2 -maxdepth 2 -type d -name 'train-*')
done_epochs=$(cat "$work/m1/progress")
check "[ -n '$ckpt' ] && [ -d '$ckpt/epoch_$done_epochs' ]" "the checkpoint folder holds epoch_$done_epochs"
check "[ $done_epochs -lt $epochs ]" "the run was stopped before its end (after $done_epochs epochs)"
check "[ -z \"\$(find '$ckpt' -mindepth 1 -maxdepth 1 -name '.*')\" ]" "no temporary folder is left"
missing=""
for e in "$ckpt"/epoch_*; do
    for r in 0 1; do [ -f "$e/random_states_$r.pkl" ] || missing="$missing $(basename "$e")/random_states_$r.pkl"; done
done
check "[ -z '$missing' ]" "every epoch holds both ranks' RNG states (missing:$missing)"

# 3. Resumed.
"$exe" run --store "$store" --run-id resumed --param "marker=$work/m1" --param epoch_ms=300 >"$work/resumed.out" 2>&1
check "[ $? = 0 ]" "the next run succeeds"
log="$store/resumed/train/log"
check "grep -q \"checkpoint: resuming from $ckpt/epoch_$done_epochs\" '$log'" "it resumes from PIPE_CHECKPOINT_LATEST"
check "grep -q 'resumed from epoch_$done_epochs at epoch $done_epochs; random states: random_states_0.pkl random_states_1.pkl' '$log'" \
    "Accelerate loaded both ranks' RNG states"
check "! grep -q 'epoch 0 loss' '$log' && [ \$(grep -c '\\[rank 0\\] epoch [0-9]* loss' '$log') = $((epochs - done_epochs)) ]" \
    "it trained only the $((epochs - done_epochs)) epochs left"
got=$(json "$store/resumed/train/outputs/out" 'd["loss"], d["weights"]')
check "[ '$got' = '$want' ]" "its final loss and weights are an uninterrupted run's ($got; $want)"
check "[ ! -e '$ckpt' ]" "the checkpoint folder is gone after success"

if [ "$failed" != 0 ]; then
    for f in "$work"/*.out "$store"/*/train/log; do sed "s|^|    $f | |" "$f" | tail -25; done
fi
finish
