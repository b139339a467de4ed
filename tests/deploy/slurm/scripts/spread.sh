#!/bin/sh
# A command step on two machines (tests/deploy/slurm_cluster.sh): each rank
# says where it runs and what the launcher gave it; rank 0 writes the output.
set -eu
data=$1 out=$2
echo "program rank $RANK of $WORLD_SIZE group $GROUP_RANK of $GROUP_WORLD_SIZE on SLURM_NODEID $SLURM_NODEID master $MASTER_ADDR:$MASTER_PORT in $(pwd)"
if [ "$RANK" = 0 ]; then
    printf 'lines %s\n' "$(wc -l <"$data")" >"$out"
else
    printf 'discarded\n' >"$out"
fi
