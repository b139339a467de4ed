#!/usr/bin/env bash
# The installed CMake package (docs/build-integration.md): installs pipec
# into a temporary prefix, then builds outside/ (find_package(pipec) and
# pipec_add_pipeline) with one CMake generator and checks
#   - the first build, and that an unchanged rebuild does nothing;
#   - that touching an imported .pipe file re-runs pipec (and recompiles
#     nothing: the bundle did not change), that touching or editing a step
#     source or its header recompiles what depends on it;
#   - that counter_bundle's tarball builds with plain CMake, pipec not on PATH;
#   - that both executables run the pipeline.
#
#   cmake_package.sh BUILD_DIR OUTSIDE_SOURCE_DIR GENERATOR
set -euo pipefail
build_dir=$1 outside=$2 generator=$3
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

case $generator in
Ninja) command -v ninja >/dev/null || { echo "SKIP: no ninja"; exit 77; } ;;
"Unix Makefiles") command -v make >/dev/null || { echo "SKIP: no make"; exit 77; } ;;
esac

step "install into $tmp/prefix"
install_pipec "$build_dir"

src=$tmp/src b=$tmp/build
cp -R "$outside" "$src"
obj=$b/CMakeFiles/counter.dir
main_o=$obj/counter-bundle/src/counting_main.c.o
total_o=$obj/steps/total.c.o
generate_o=$obj/steps/generate.c.o
stamp=$b/counter.pipec-stamp
watched=("$main_o" "$total_o" "$generate_o" "$stamp" "$b/counter"
         "$b/counter-bundle/src/counting_main.c" "$b/counter-bundle/src/counting.h")

step "configure outside/ with $generator"
logged "$cmake" -S "$src" -B "$b" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_EXE_LINKER_FLAGS="${PIPEC_TEST_LDFLAGS:-}"

step "first build"
logged "$cmake" --build "$b"
[ -x "$b/counter" ] || fail "no executable $b/counter"
[ -f "$b/counter-bundle/bundle.yaml" ] || fail "no bundle in $b/counter-bundle"
grep -q "steps/numbers.h" "$b/counter.pipec.d" || fail "the depfile does not name the step header"

# An unchanged rebuild: nothing runs, no file changes.
no_work() {
    file_times "${watched[@]}" >"$tmp/before"
    logged "$cmake" --build "$b"
    file_times "${watched[@]}" >"$tmp/after"
    if ! diff "$tmp/before" "$tmp/after" >&2; then
        cat "$tmp/log" >&2
        fail "$1: an unchanged rebuild changed files"
    fi
    if grep -E "pipec: building|Building C|Linking" "$tmp/log" >&2; then
        fail "$1: an unchanged rebuild did work"
    fi
    if [ "$generator" = Ninja ]; then
        ninja -C "$b" -n -d explain >"$tmp/explain" 2>&1
        grep -q "no work to do" "$tmp/explain" || { cat "$tmp/explain" >&2; fail "$1: ninja -n has work to do"; }
    fi
}
step "unchanged rebuild"
no_work "after the first build"

changed() { [ "$(grep -F "$1 " "$tmp/before")" != "$(grep -F "$1 " "$tmp/after")" ]; }
rebuild_after() {
    file_times "${watched[@]}" >"$tmp/before"
    logged "$cmake" --build "$b"
    file_times "${watched[@]}" >"$tmp/after"
}

step "touch the imported .pipe file: pipec runs again, nothing recompiles"
tick
touch "$src/steps/steps.pipe"
rebuild_after
changed "$stamp" || fail "pipec did not run after steps/steps.pipe was touched"
grep -q "pipec: building the bundle of counter" "$tmp/log" || fail "no pipec line in the build log"
for f in "$main_o" "$total_o" "$generate_o"; do
    changed "$f" && fail "$f was rebuilt though the bundle did not change"
done
no_work "after touching steps/steps.pipe"

step "touch a step source: pipec runs, only its object recompiles"
tick
touch "$src/steps/total.c"
rebuild_after
changed "$stamp" || fail "pipec did not run after steps/total.c was touched"
changed "$total_o" || fail "steps/total.c was touched and not recompiled"
changed "$generate_o" && fail "steps/generate.c was recompiled though it did not change"
changed "$b/counter" || fail "not relinked"

step "edit a step source: the driver's code digest changes too"
tick
echo "/* edited by the test */" >>"$src/steps/total.c"
rebuild_after
changed "$total_o" || fail "steps/total.c was edited and not recompiled"
changed "$main_o" || fail "the driver was not recompiled after a step source changed"
grep -q "edited by the test" "$b/counter-bundle/src/user/total.c" ||
    fail "the bundle's copy of steps/total.c was not updated"

step "touch a step header: both steps recompile"
tick
touch "$src/steps/numbers.h"
rebuild_after
changed "$stamp" || fail "pipec did not run after steps/numbers.h was touched"
changed "$generate_o" || fail "steps/generate.c includes numbers.h and was not recompiled"
changed "$total_o" || fail "steps/total.c includes numbers.h and was not recompiled"
no_work "after touching steps/numbers.h"

step "counter_bundle: the tarball builds with plain CMake"
logged "$cmake" --build "$b" --target counter_bundle
[ -f "$b/counter-bundle.tar.gz" ] || fail "no $b/counter-bundle.tar.gz"
mkdir "$tmp/unpacked"
tar -xzf "$b/counter-bundle.tar.gz" -C "$tmp/unpacked"
[ -f "$tmp/unpacked/counter-bundle/CMakeLists.txt" ] || fail "the tarball has no counter-bundle/CMakeLists.txt"
clean_path=$(path_without_pipec)
logged env PATH="$clean_path" "$cmake" -S "$tmp/unpacked/counter-bundle" -B "$tmp/unpacked/build" -G "$generator"
logged env PATH="$clean_path" "$cmake" --build "$tmp/unpacked/build"
[ -x "$tmp/unpacked/build/counting" ] || fail "the bundle did not build its executable, counting"

# Runs the pipeline and checks what `generate` wrote.
run_pipeline() {
    local exe=$1 store=$2
    if ! (cd "$tmp" && "$exe" run --store "$store") >"$tmp/run.log" 2>&1; then
        cat "$tmp/run.log" >&2
        fail "$exe run --store $store failed"
    fi
    local numbers
    numbers=$(find "$store" -path "*/generate/outputs/numbers" 2>/dev/null | head -n 1 || true)
    [ -n "$numbers" ] || fail "$exe run wrote no generate/outputs/numbers under $store"
    [ "$(wc -l <"$numbers")" -eq 10 ] || fail "$numbers does not hold 10 numbers"
}
step "run the executable"
run_pipeline "$b/counter" "$tmp/store"
step "run the bundle's executable"
run_pipeline "$tmp/unpacked/build/counting" "$tmp/store-bundle"

step "a step source edited, then run: the executable builds itself again first"
tick
echo "/* edited before a run */" >>"$src/steps/total.c"
run_pipeline "$b/counter" "$tmp/store"
grep -qxF "pipe: $src/steps/total.c changed since the build; rebuilding (cmake --build $b --target counter)" "$tmp/run.log" ||
    { cat "$tmp/run.log" >&2; fail "run did not rebuild after steps/total.c was edited"; }
grep -q "edited before a run" "$b/counter-bundle/src/user/total.c" || fail "the rebuild did not run pipec"
run_pipeline "$b/counter" "$tmp/store"
if grep -q "changed since the build" "$tmp/run.log"; then cat "$tmp/run.log" >&2; fail "rebuilt again with nothing changed"; fi

ok=1
echo "ok"
