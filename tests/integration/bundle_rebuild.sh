#!/usr/bin/env bash
# A bundle built where pipec wrote it follows its .pipe file
# (docs/build-integration.md, "Building a bundle again"): `cmake --build` runs
# `pipec build` again first when the .pipe file, an import or a step's source
# changed, says what it rewrote, and the executable then behaves as the new
# sources say. Checked with Ninja (a source edited, the .pipe edited, a
# source added, a broken .pipe file) and Make (a source edited); then a
# bundle whose pipec is gone, and one moved elsewhere, build from their
# copies as they are (and their executables refuse to run an edited
# source's old copy while the original is there).
#
#   bundle_rebuild.sh PIPEC EXAMPLE_DIR     (EXAMPLE_DIR: tests/integration/outside)
set -euo pipefail
pipec=$1 example=$2
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

src=$tmp/src
cp -R "$example" "$src"
rm -f "$src/CMakeLists.txt"
run_count() { # BUNDLE_EXE: the count `generate` logged
    "$1" run --store "$tmp/store" --no-cache >"$tmp/run.log" 2>&1 || { cat "$tmp/run.log" >&2; fail "$1 run failed"; }
    sed -n 's/.*\] \(.*wrote [0-9]* numbers\).*/\1/p' "$tmp/run.log" | head -n 1
}
configure() { # BUNDLE GENERATOR
    logged "$cmake" -S "$1" -B "$1/build" -G "$2" -DPIPE_WITH_CUDA=OFF
    cp "$tmp/log" "$tmp/configure.log"
}

step "pipec build, configure and build with Ninja"
(cd "$src" && logged "$pipec" build counting.pipe -o "$tmp/bundle" --target local)
[ -f "$tmp/bundle/pipec-rebuild.cmake" ] || fail "pipec wrote no pipec-rebuild.cmake"
configure "$tmp/bundle" Ninja
grep -q "counting: rebuilt from $src/counting.pipe" "$tmp/configure.log" ||
    { cat "$tmp/configure.log" >&2; fail "the bundle does not say it follows counting.pipe"; }
logged "$cmake" --build "$tmp/bundle/build"
exe=$tmp/bundle/build/counting
[ "$(run_count "$exe")" = "wrote 10 numbers" ] || fail "the first build does not write 10 numbers"

step "an unchanged build does nothing"
logged "$cmake" --build "$tmp/bundle/build"
grep -q "no work to do" "$tmp/log" || { cat "$tmp/log" >&2; fail "an unchanged build did work"; }

step "a step's source edited: pipec runs, says what it wrote, the executable changes"
tick
sed -i 's/"wrote %lld numbers"/"now wrote %lld numbers"/' "$src/steps/generate.c"
logged "$cmake" --build "$tmp/bundle/build"
grep -q "pipec: bringing the bundle up to date with counting.pipe" "$tmp/log" || { cat "$tmp/log" >&2; fail "pipec did not run"; }
grep -q "pipec: wrote $tmp/bundle/src/user/generate.c" "$tmp/log" || { cat "$tmp/log" >&2; fail "pipec did not say it rewrote generate.c"; }
[ "$(run_count "$exe")" = "now wrote 10 numbers" ] || fail "the rebuilt executable still runs the old generate.c"

step "the .pipe file edited: a new default reaches the executable"
tick
sed -i 's/count: int = 10/count: int = 12/; s/expect = 55/expect = 78/' "$src/counting.pipe"
logged "$cmake" --build "$tmp/bundle/build"
grep -q "pipec: wrote $tmp/bundle/bundle.yaml" "$tmp/log" || { cat "$tmp/log" >&2; fail "pipec did not rewrite bundle.yaml"; }
[ "$(run_count "$exe")" = "now wrote 12 numbers" ] || fail "the new default count did not reach the executable"

step "a source added to a step: one build compiles it"
tick
printf 'long long helper_twice(long long x) { return 2 * x; }\n' >"$src/steps/helper.c"
sed -i 's/    source = "generate.c"/    source = ["generate.c", "helper.c"]/' "$src/steps/steps.pipe"
sed -i 's/#include "numbers.h"/#include "numbers.h"\nlong long helper_twice(long long x);/; s/"now wrote %lld numbers", (long long)args->count/"now wrote %lld numbers", helper_twice(args->count)/' \
    "$src/steps/generate.c"
logged "$cmake" --build "$tmp/bundle/build"
[ -f "$tmp/bundle/src/user/helper.c" ] || fail "helper.c was not copied into the bundle"
[ "$(run_count "$exe")" = "now wrote 24 numbers" ] || fail "the new source is not in the executable"

step "a broken .pipe file fails the build with pipec's diagnostic; the bundle keeps its files"
tick
cp "$src/counting.pipe" "$tmp/counting.pipe.good"
sed -i 's/numbers = generate(count = count)/numbers = generat(count = count)/' "$src/counting.pipe"
find "$tmp/bundle" -path "$tmp/bundle/build" -prune -o -type f -printf '%P %T@\n' | sort >"$tmp/before"
if "$cmake" --build "$tmp/bundle/build" >"$tmp/log" 2>&1; then cat "$tmp/log" >&2; fail "the build passed with a broken .pipe file"; fi
grep -q "error\[E0102\]: no step named \`generat\`" "$tmp/log" || { cat "$tmp/log" >&2; fail "no E0102 from pipec"; }
grep -q "the bundle keeps the files of its last build" "$tmp/log" || { cat "$tmp/log" >&2; fail "no word that the bundle is kept"; }
find "$tmp/bundle" -path "$tmp/bundle/build" -prune -o -type f -printf '%P %T@\n' | sort >"$tmp/after"
diff "$tmp/before" "$tmp/after" >&2 || fail "a failed rebuild changed the bundle"
tick
cp "$tmp/counting.pipe.good" "$src/counting.pipe"
logged "$cmake" --build "$tmp/bundle/build"
[ "$(run_count "$exe")" = "now wrote 24 numbers" ] || fail "the build did not recover"

step "Make: a source edited rebuilds in one go"
(cd "$src" && logged "$pipec" build counting.pipe -o "$tmp/make-bundle" --target local)
configure "$tmp/make-bundle" "Unix Makefiles"
logged "$cmake" --build "$tmp/make-bundle/build"
tick
sed -i 's/"now wrote %lld numbers"/"make wrote %lld numbers"/' "$src/steps/generate.c"
logged "$cmake" --build "$tmp/make-bundle/build"
grep -q "pipec: wrote $tmp/make-bundle/src/user/generate.c" "$tmp/log" || { cat "$tmp/log" >&2; fail "make: pipec did not run"; }
[ "$(run_count "$tmp/make-bundle/build/counting")" = "make wrote 24 numbers" ] || fail "make: the edit did not reach the executable"

step "pipec gone: the copies are used as they are"
cp "$pipec" "$tmp/pipec-copy"
(cd "$src" && logged "$tmp/pipec-copy" build counting.pipe -o "$tmp/orphan" --target local)
configure "$tmp/orphan" Ninja
logged "$cmake" --build "$tmp/orphan/build"
rm "$tmp/pipec-copy"
tick
sed -i 's/"make wrote %lld numbers"/"unseen wrote %lld numbers"/' "$src/steps/generate.c"
logged "$cmake" --build "$tmp/orphan/build"
grep -q "built from the sources in this bundle as they are" "$tmp/log" ||
    { cat "$tmp/log" >&2; fail "no word that the bundle builds from its copies"; }
# Its executable refuses to run the old copy of an edited source (docs/runtime.md, "Edit, run").
if "$tmp/orphan/build/counting" run --store "$tmp/store" >"$tmp/run.log" 2>&1; then
    cat "$tmp/run.log" >&2
    fail "the orphan bundle ran the old copy of an edited source"
fi
grep -q "pipe: error: $src/steps/generate.c changed since this bundle was built" "$tmp/run.log" ||
    { cat "$tmp/run.log" >&2; fail "the orphan bundle does not name the edited source"; }

step "a bundle moved elsewhere builds from its copies"
cp -R "$tmp/make-bundle" "$tmp/moved"
rm -rf "$tmp/moved/build"
configure "$tmp/moved" Ninja
grep -q "counting: built from the sources in this bundle as they are" "$tmp/configure.log" ||
    { cat "$tmp/configure.log" >&2; fail "the moved bundle would rebuild another bundle's files"; }
logged "$cmake" --build "$tmp/moved/build"
# The originals are not on this machine (as in an image): it runs its copies as they are.
mv "$src" "$tmp/src-away"
[ "$(run_count "$tmp/moved/build/counting")" = "make wrote 24 numbers" ] || fail "the moved bundle did not build from its copies"
mv "$tmp/src-away" "$src"

ok=1
echo "bundle_rebuild: ok"
