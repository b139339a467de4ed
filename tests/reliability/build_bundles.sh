#!/usr/bin/env bash
# The fixture of the reliability tests: reliability.pipe's pipelines built
# with pipec into bundles, compiled by one CMake project so that they share
# one copy of the runtime: WORK/build/crash/crash, WORK/build/faults/faults,
# WORK/build/wide/wide, WORK/build/stray/stray, WORK/build/resume_c/resume_c,
# WORK/build/resume_py/resume_py, WORK/build/flood/flood
set -eu
pipec=$1
src=$2
work=$3
cmake=${CMAKE:-cmake}
rm -rf "$work"
mkdir -p "$work"
pipelines="crash faults wide stray resume_c resume_py flood"
for p in $pipelines; do
    "$pipec" build "$src/reliability.pipe" --pipeline "$p" -o "$work/$p" --target local
done
cat >"$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(reliability_bundles C)
add_subdirectory(crash/runtime runtime)
add_subdirectory(crash)
add_subdirectory(faults)
add_subdirectory(wide)
add_subdirectory(stray)
add_subdirectory(resume_c)
add_subdirectory(resume_py)
add_subdirectory(flood)
CMAKE
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$work" -B "$work/build" "${generator[@]}" -DPIPE_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
"$cmake" --build "$work/build" -j 2 >/dev/null
for p in $pipelines; do
    [ -x "$work/build/$p/$p" ] || { echo "no $work/build/$p/$p"; exit 1; }
done
echo "built $pipelines in $work/build"
