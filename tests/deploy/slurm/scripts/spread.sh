#!/bin/sh
# A command step on two machines (tests/deploy/slurm_cluster.sh): each rank
# says where it runs and what the launcher gave it, and writes the output at
# the path it is given, as under torchrun. Each machine's ranks write into
# that machine's own folder: machine 0's becomes the artifact, machine 1's
# is discarded, on the test cluster's shared store too.
set -eu
data=$1 out=$2
echo "program rank $RANK of $WORLD_SIZE group $GROUP_RANK of $GROUP_WORLD_SIZE on SLURM_NODEID $SLURM_NODEID master $MASTER_ADDR:$MASTER_PORT in $(pwd)"
printf 'lines %s from machine %s\n' "$(wc -l <"$data")" "$GROUP_RANK" >"$out"
