#!/usr/bin/env bash
# C++ sources and `libraries` in a bundle: a C++17 step linking OpenBLAS
# (pkg-config), libm (a name) and Threads (a CMake target) builds and runs;
# a library that is missing stops CMake's configuration with a message
# naming the step and the library; an entry function no source defines is
# W0407 at check time, and the link error names the step and its line.
set -u
# shellcheck source=tests/command/lib.sh
. "$(dirname "$0")/lib.sh"
build_bundle "$src_dir/cxx/cxx.pipe" cxx -DPIPE_WITH_CUDA=OFF
"$exe" step dot --run-id R --store "$work/store" >"$work/dot.out" 2>&1
check "[ $? = 0 ] && grep -q 'sum of squares 30, sqrt 5.4772' '$work/store/R/dot/outputs/out'" \
    "dot: the C++ step ran with OpenBLAS ($(cat "$work/store/R/dot/outputs/out" 2>/dev/null))"

# configure_fails LIBRARY EXPECTED: a copy of cxx.pipe linking LIBRARY.
configure_fails() {
    local lib=$1 expected=$2 dir="$work/missing-$3"
    mkdir -p "$dir"
    cp "$src_dir/cxx/dot.cpp" "$dir/"
    sed "s|libraries = \\[.*\\]|libraries = [\"$lib\"]|" "$src_dir/cxx/cxx.pipe" >"$dir/cxx.pipe"
    "$pipec" build "$dir/cxx.pipe" -o "$dir/bundle" --target local >/dev/null 2>&1 || { bad "pipec build with $lib"; return; }
    if cmake -S "$dir/bundle" -B "$dir/bundle/build" -DPIPE_WITH_CUDA=OFF >"$dir/cmake.log" 2>&1; then
        bad "cmake accepted the missing library $lib"
        return
    fi
    # CMake wraps long messages: compare with the lines joined.
    tr -s ' \n' '  ' <"$dir/cmake.log" >"$dir/cmake.joined"
    check "grep -qF '$expected' '$dir/cmake.joined'" "missing $lib: the message names the step and the library"
}
# The messages quote names in backquotes: literal text.
# shellcheck disable=SC2016
{
    configure_fails "pkg:no-such-module-pipec" 'step `dot` links "pkg:no-such-module-pipec", but pkg-config knows no module `no-such-module-pipec`' pkg
    configure_fails "NoSuchPackagePipec::lib" 'step `dot` links "NoSuchPackagePipec::lib", but find_package(NoSuchPackagePipec) found no such' target
    configure_fails "no_such_library_pipec" 'step `dot` links "no_such_library_pipec", but no library libno_such_library_pipec was found' name
}

# An entry no source defines: W0407, then a link error naming the step.
dir="$work/no-entry"
mkdir -p "$dir"
cp "$src_dir/cxx/dot.cpp" "$dir/"
sed 's|libraries = \[.*\]|entry = "dot_main"\n    libraries = ["pkg:openblas", "m", "Threads::Threads"]|' "$src_dir/cxx/cxx.pipe" >"$dir/cxx.pipe"
"$pipec" check "$dir/cxx.pipe" >"$dir/check.log" 2>&1
check "grep -q 'warning\\[W0407\\]: no source of step .dot. appears to define .dot_main.' '$dir/check.log'" "no entry: W0407"
line=$(grep -n '^step dot' "$dir/cxx.pipe" | cut -d: -f1)
"$pipec" build "$dir/cxx.pipe" -o "$dir/bundle" --target local >/dev/null 2>&1
cmake -S "$dir/bundle" -B "$dir/bundle/build" -DPIPE_WITH_CUDA=OFF >"$dir/cmake.log" 2>&1
cmake --build "$dir/bundle/build" >"$dir/build.log" 2>&1
# The reference is from the driver's constant for the step, in a section of
# its own (.data.rel.ro.NAME, or .rodata.NAME without PIE).
check "[ $? != 0 ] && grep -q \"\\.pipe_step_dot_at_cxx_pipe_line_$line+0x0): undefined reference to .dot_main'\" '$dir/build.log'" \
    "no entry: the link error names the step and cxx.pipe line $line"

finish
