#!/usr/bin/env bash
# pipec_add_pipeline() in-tree (docs/build-integration.md, "Inside pipec's
# own tree"): a project adds pipec's source tree with add_subdirectory and
# builds outside/'s pipeline with the pipec and pipe targets being built;
# the configure-time host pipec lists the sources. Checks the build, an
# unchanged rebuild, that a step edit re-runs the in-tree pipec, and a run.
#
#   in_tree.sh PIPEC_SOURCE_DIR GENERATOR
set -euo pipefail
source_dir=$1 generator=$2
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
case $generator in
Ninja) command -v ninja >/dev/null || { echo "SKIP: no ninja"; exit 77; } ;;
"Unix Makefiles") command -v make >/dev/null || { echo "SKIP: no make"; exit 77; } ;;
esac

# A snapshot of the tree (sources only), so that edits made while the test
# runs do not rebuild pipec under it.
tree=$tmp/pipec
mkdir "$tree"
for entry in "$source_dir"/* "$source_dir"/.[!.]*; do
    [ -e "$entry" ] || continue
    case ${entry##*/} in .git) continue ;; esac
    [ -f "$entry/CMakeCache.txt" ] && continue # a build directory
    cp -R "$entry" "$tree/"
done
source_dir=$tree
src=$tmp/src b=$tmp/build
cp -R "$source_dir/tests/integration/outside" "$src"

step "configure in-tree with $generator"
# No CUDA probe: nothing here needs it, and it is slow.
logged "$cmake" -S "$source_dir/tests/integration/in-tree" -B "$b" -G "$generator" \
    -DPIPEC_SOURCE_DIR="$source_dir" -DOUTSIDE_DIR="$src" -DCMAKE_CUDA_COMPILER=NOTFOUND \
    -DCMAKE_EXE_LINKER_FLAGS="${PIPEC_TEST_LDFLAGS:-}"
[ -x "$b/pipec-host/compiler/pipec" ] || fail "no host pipec in $b/pipec-host"

step "build counter (builds pipec and pipe first)"
logged "$cmake" --build "$b" --target counter
[ -x "$b/counter" ] || fail "no executable $b/counter"
[ -x "$b/pipec/compiler/pipec" ] || fail "the in-tree pipec was not built"
grep -q "pipec/compiler/pipec build" "$b/"*.ninja "$b/CMakeFiles/counter_pipec.dir/build.make" 2>/dev/null ||
    fail "the build does not run the in-tree pipec"

step "unchanged rebuild"
stamp=$b/counter.pipec-stamp
before=$(file_times "$stamp" "$b/counter")
logged "$cmake" --build "$b" --target counter
[ "$before" = "$(file_times "$stamp" "$b/counter")" ] || fail "an unchanged rebuild changed files"

step "edit a step source: the in-tree pipec runs again"
tick
echo "/* edited by the test */" >>"$src/steps/generate.c"
logged "$cmake" --build "$b" --target counter
[ "$before" != "$(file_times "$stamp" "$b/counter")" ] || fail "pipec did not run after steps/generate.c changed"

step "run"
(cd "$tmp" && "$b/counter" run --store "$tmp/store") >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log" >&2; fail "counter run failed"; }

ok=1
echo "ok"
