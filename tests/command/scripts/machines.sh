#!/bin/sh
# Every rank writes a file of its own into the output folder it is given, as
# under torchrun: machine 0's folder becomes the artifact, the others' are
# discarded.
set -eu
out=$1
mkdir -p "$out"
printf 'machine %s\n' "$GROUP_RANK" >"$out/rank-$RANK"
echo "rank $RANK of machine $GROUP_RANK wrote into $out"
