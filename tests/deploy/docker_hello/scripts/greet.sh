#!/bin/sh
# A command step in the image: where it runs, its parameter, its input.
set -eu
words=$1 n=$2 card=$3
printf 'greeting n=%s in %s\n' "$n" "$(pwd)" >"$card"
cat "$words" >>"$card"
