#!/bin/sh
# A command step that resumes after a requeue (tests/deploy/slurm_cluster.sh):
# counts to TICKS, a tick each 0.1 s, with a checkpoint every 10 ticks and
# one on SIGTERM, written as docs/checkpoints.md says: into .tick_N.tmp in
# PIPE_CHECKPOINT_DIR, then renamed to tick_N. It resumes from
# PIPE_CHECKPOINT_LATEST. Every start and stop is one line of
# slurm/INVOCATION.history in the run's folder, which the test reads; a
# start also counts the entries of the folder whose names start with `.`,
# which the runtime removes before an attempt.
set -eu
ticks=$1 out=$2
run_dir=$PIPE_STORE/$PIPE_RUN_ID
history=$run_dir/slurm/$PIPE_INVOCATION.history
mkdir -p "$run_dir/slurm"
dir=${PIPE_CHECKPOINT_DIR:?the runtime gave no checkpoint folder}
latest=${PIPE_CHECKPOINT_LATEST:-}
strays=$(find "$dir" -mindepth 1 -maxdepth 1 -name '.*' | wc -l)
i=0
if [ -n "$latest" ]; then i=$(cat "$latest/count"); fi
echo "start $i restart ${SLURM_RESTART_COUNT:-0} dir $dir latest $latest strays $strays" >>"$history"

save() {
    [ ! -e "$dir/tick_$i" ] || return 0
    rm -rf "$dir/.tick_$i.tmp"
    mkdir "$dir/.tick_$i.tmp"
    printf '%s\n' "$i" >"$dir/.tick_$i.tmp/count"
    mv "$dir/.tick_$i.tmp" "$dir/tick_$i"
    echo "saved $i" >>"$history"
}
trap 'save; echo "term $i" >>"$history"; exit 143' TERM

while [ "$i" -lt "$ticks" ]; do
    # Slurm signals every process of the step, `sleep` too: its failure
    # must not end the script (set -e) before the trap has saved.
    sleep 0.1 || true
    i=$((i + 1))
    if [ $((i % 10)) = 0 ]; then save; fi
done
echo "done $i" >>"$history"
printf 'ticks %s\n' "$i" >"$out"
