#!/usr/bin/env bash
# Compile-and-run check of a generated bundle: the driver compiles warning-free
# with -Wall -Wextra -Werror under gcc and clang, the .cu glue with nvcc when
# present, and the whole bundle builds with CMake and answers `describe`.
set -eu
pipec=$1
root=$2
name=$3
case_dir="$root/tests/golden/$name"
if [ -f "$case_dir/pipe_path" ]; then pipe="$root/$(cat "$case_dir/pipe_path")"; else pipe="$case_dir/case.pipe"; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
select=()
[ -f "$case_dir/pipeline" ] && select=(--pipeline "$(cat "$case_dir/pipeline")")
"$pipec" build "$pipe" "${select[@]}" -o "$work/out" --target local
cd "$work/out"
for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    for f in src/*_main.c; do
        $cc -std=c11 -Wall -Wextra -Werror -Isrc -Iruntime/include -Iruntime/base/include -c "$f" -o "$work/main.$cc.o"
    done
    echo "$cc: driver compiles warning-free"
done
if command -v nvcc >/dev/null && ls src/*_cuda.cu >/dev/null 2>&1; then
    nvcc -Werror all-warnings -Iruntime/include -Iruntime/base/include -c src/*_cuda.cu -o "$work/cuda.o"
    echo "nvcc: CUDA glue compiles"
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build >/dev/null
exe=$(sed -n 's/^pipeline: //p' bundle.yaml)
./build/"$exe" describe >/dev/null
echo "bundle builds and runs \`describe\`"
