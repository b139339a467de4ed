#!/usr/bin/env bash
# The fixture of the reliability tests: reliability.pipe's three pipelines
# (crash, faults, wide) built with pipec into three bundles, compiled by one
# CMake project so that they share one copy of the runtime:
#   WORK/build/crash/crash, WORK/build/faults/faults, WORK/build/wide/wide
set -eu
pipec=$1
src=$2
work=$3
cmake=${CMAKE:-cmake}
rm -rf "$work"
mkdir -p "$work"
for p in crash faults wide; do
    "$pipec" build "$src/reliability.pipe" --pipeline "$p" -o "$work/$p" --target local
done
cat >"$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(reliability_bundles C)
add_subdirectory(crash/runtime runtime)
add_subdirectory(crash)
add_subdirectory(faults)
add_subdirectory(wide)
CMAKE
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$work" -B "$work/build" "${generator[@]}" -DPIPE_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
"$cmake" --build "$work/build" -j 2 >/dev/null
for p in crash faults wide; do
    [ -x "$work/build/$p/$p" ] || { echo "no $work/build/$p/$p"; exit 1; }
done
echo "built crash, faults and wide in $work/build"
