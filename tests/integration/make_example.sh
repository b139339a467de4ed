#!/usr/bin/env bash
# examples/make-integration (docs/build-integration.md): installs pipec into
# a temporary prefix, builds the example with plain Make and checks that an
# unchanged rebuild does nothing, that touching an imported .pipe file re-runs
# pipec only, that touching a step source recompiles that source only, and
# that the pipeline runs.
#
#   make_example.sh BUILD_DIR EXAMPLE_DIR
set -euo pipefail
build_dir=$1 example=$2
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || { echo "SKIP: no make"; exit 77; }

step "install into $tmp/prefix"
install_pipec "$build_dir"

ex=$tmp/example
cp -R "$example" "$ex"
rm -rf "$ex/build"
# PIPEC_PREFIX comes from pipec's location; the library directory is where
# this platform's install put libpipe.a.
mk() {
    make -C "$ex" PIPEC="$prefix/bin/pipec" PIPEC_LIBDIR="$(dirname "$libpipe")" \
        ${PIPEC_TEST_LDFLAGS:+LDFLAGS="$PIPEC_TEST_LDFLAGS"} "$@"
}
objs=("$ex/build/obj/training_main.o" "$ex/build/obj/src/make_points.o" "$ex/build/obj/src/fit.o"
      "$ex/build/obj/src/evaluate.o" "$ex/build/training" "$ex/build/training.stamp")

step "make"
logged mk
[ -x "$ex/build/training" ] || fail "make did not build build/training"
grep -q "steps.pipe" "$ex/build/training.d" || fail "the depfile does not name the imported steps.pipe"

step "unchanged rebuild"
file_times "${objs[@]}" >"$tmp/before"
logged mk
file_times "${objs[@]}" >"$tmp/after"
diff "$tmp/before" "$tmp/after" >&2 || fail "an unchanged make changed files"
grep -q "Nothing to be done" "$tmp/log" || { cat "$tmp/log" >&2; fail "an unchanged make did work"; }

step "touch the imported steps.pipe: pipec runs, nothing recompiles"
tick
touch "$ex/steps.pipe"
logged mk
grep -q "pipec build training.pipe" "$tmp/log" || { cat "$tmp/log" >&2; fail "pipec did not run"; }
grep -E "^cc |-c " "$tmp/log" >&2 && fail "make recompiled though the bundle did not change"

step "touch src/fit.c: only fit.o recompiles"
tick
file_times "${objs[@]}" >"$tmp/before"
touch "$ex/src/fit.c"
logged mk
file_times "${objs[@]}" >"$tmp/after"
changed() { [ "$(grep -F "$1 " "$tmp/before")" != "$(grep -F "$1 " "$tmp/after")" ]; }
changed "$ex/build/obj/src/fit.o" || fail "src/fit.c was touched and fit.o not rebuilt"
changed "$ex/build/obj/src/make_points.o" && fail "make_points.o was rebuilt though make_points.c did not change"
changed "$ex/build/training" || fail "not relinked"

step "make run"
logged mk run
find "$ex/build/store" -path "*/fit/outputs/model" | grep -q . || fail "make run wrote no fit/outputs/model"

ok=1
echo "ok"
