#!/usr/bin/env bash
# Edit, run (docs/runtime.md): `run` notices a file the bundle was built
# from changed since the build (pipec-inputs.txt). Where pipec and CMake
# built it, it builds again first, says so in one line and runs the new
# executable; unchanged, or touched with the same bytes, it starts nothing.
# A bundle moved away from where pipec wrote it refuses with the commands
# that build it again; a bundle whose originals are not on this machine (an
# image, a cluster) runs as it is. A Python traceback and a compiler's
# error name the user's file, not the bundle's copy.
#
#   run_rebuild.sh PIPEC EXAMPLE_DIR     (EXAMPLE_DIR: tests/integration/edit_run)
set -euo pipefail
pipec=$1 example=$2
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

src=$tmp/src
cp -R "$example" "$src"
exe=$tmp/bundle/build/edit
rebuilt_line="pipe: $src/%s changed since the build; rebuilding (cmake --build $tmp/bundle/build --target edit)"

# run_edit: runs the executable; its output in $tmp/run.log.
run_edit() {
    "$exe" run --store "$tmp/store" --no-cache >"$tmp/run.log" 2>&1 ||
        { cat "$tmp/run.log" >&2; fail "$exe run failed"; }
}
said() { grep -o '\(py-v[0-9]*\|boom\) [A-Z0-9 -]*' "$tmp/run.log" | head -n 1; }
expect_rebuilt() { # FILE (relative to src)
    # shellcheck disable=SC2059
    grep -qxF "$(printf "$rebuilt_line" "$1")" "$tmp/run.log" ||
        { cat "$tmp/run.log" >&2; fail "no line saying $1 changed and the bundle is rebuilt"; }
}
expect_quiet() {
    if grep -q "changed since the build" "$tmp/run.log"; then cat "$tmp/run.log" >&2; fail "$1"; fi
}
# The processes a run starts (execve calls), with strace where there is one.
execs() {
    strace -f -qq -e trace=execve -o "$tmp/strace.log" "$exe" run --store "$tmp/store" --no-cache >/dev/null 2>&1 ||
        fail "run under strace failed"
    grep -c 'execve(' "$tmp/strace.log"
}

step "pipec build, configure and build with Ninja"
(cd "$src" && logged "$pipec" build edit.pipe -o "$tmp/bundle" --target local)
[ -f "$tmp/bundle/pipec-inputs.txt" ] || fail "pipec wrote no pipec-inputs.txt"
grep -q "^file	.*	$src/scripts/shout.py	src/user/scripts/shout.py\$" "$tmp/bundle/pipec-inputs.txt" ||
    { cat "$tmp/bundle/pipec-inputs.txt" >&2; fail "pipec-inputs.txt does not record shout.py and its copy"; }
# Each file as it is: size, modification time (ns) and digest (pipec takes
# a copied file's from its one read of it).
while IFS=$'\t' read -r kind size mtime digest path _; do
    [ "$kind" = file ] || continue
    want="$(stat -c %s "$path") $(stat -c %.9Y "$path" | tr -d .) $(sha256sum "$path" | cut -c1-64)"
    [ "$size $mtime $digest" = "$want" ] || fail "pipec-inputs.txt says $size $mtime $digest of $path, which is $want"
done <"$tmp/bundle/pipec-inputs.txt"
logged "$cmake" -S "$tmp/bundle" -B "$tmp/bundle/build" -G Ninja -DPIPE_WITH_CUDA=OFF
logged "$cmake" --build "$tmp/bundle/build"
run_edit
[ "$(said)" = "py-v1 CPP-V1 ONE" ] || { cat "$tmp/run.log" >&2; fail "the first run did not say py-v1 CPP-V1 ONE"; }
expect_quiet "an unchanged bundle was rebuilt"

if command -v strace >/dev/null && strace -f -qq -e trace=execve true >/dev/null 2>&1; then
    step "unchanged: no process beyond the steps' own"
    base=$(execs)
    tick
    touch "$src/scripts/shout.py" "$src/say.cpp" "$src/edit.pipe"
    step "touched with the same bytes: not a change, still no extra process"
    now=$(execs)
    [ "$now" = "$base" ] || fail "a touched, unchanged source started a process ($now execve calls, not $base)"
else
    echo "(strace not usable here: the process count is not checked)"
    tick
    touch "$src/scripts/shout.py" "$src/say.cpp" "$src/edit.pipe"
fi
run_edit
expect_quiet "a source touched with the same bytes was taken as a change"

step "a .py edited: run rebuilds, says so once, runs the new script"
tick
sed -i 's/py-v1/py-v2/' "$src/scripts/shout.py"
run_edit
expect_rebuilt scripts/shout.py
[ "$(grep -c "changed since the build" "$tmp/run.log")" = 1 ] || { cat "$tmp/run.log" >&2; fail "more than one rebuild line"; }
[ "$(said)" = "py-v2 CPP-V1 ONE" ] || { cat "$tmp/run.log" >&2; fail "the edited script did not run"; }
run_edit
expect_quiet "the bundle was rebuilt again with nothing changed"

step "a .cpp edited: rebuilt and relinked"
tick
sed -i 's/cpp-v1/cpp-v2/g' "$src/say.cpp"
run_edit
expect_rebuilt say.cpp
[ "$(said)" = "py-v2 CPP-V2 ONE" ] || { cat "$tmp/run.log" >&2; fail "the edited C++ step did not run"; }

step "the .pipe file edited: a new default reaches the run"
tick
sed -i 's/word: string = "one"/word: string = "two"/' "$src/edit.pipe"
run_edit
expect_rebuilt edit.pipe
[ "$(said)" = "py-v2 CPP-V2 TWO" ] || { cat "$tmp/run.log" >&2; fail "the new default did not reach the run"; }

step "a traceback names the user's script, not the bundle's copy"
tick
printf 'raise RuntimeError("boom")\n' >>"$src/scripts/shout.py"
if "$exe" run --store "$tmp/store" --no-cache >"$tmp/run.log" 2>&1; then cat "$tmp/run.log" >&2; fail "the failing script passed"; fi
grep -qF "File \"$src/scripts/shout.py\", line 7" "$tmp/run.log" ||
    { cat "$tmp/run.log" >&2; fail "the traceback does not name $src/scripts/shout.py, line 7"; }
if grep -q "$tmp/bundle/src/user/scripts/shout.py\"" "$tmp/run.log"; then cat "$tmp/run.log" >&2; fail "the traceback names the copy"; fi
"$exe" logs --store "$tmp/store" >"$tmp/logs.log" 2>&1 || true
grep -qF "File \"$src/scripts/shout.py\", line 7" "$tmp/logs.log" ||
    { cat "$tmp/logs.log" >&2; fail "the log keeps the copy's path"; }
sed -i '$d' "$src/scripts/shout.py"

step "a compiler's error during the rebuild names the user's file"
tick
sed -i 's/std::fprintf(out/std::fprintf(out undeclared_name/' "$src/say.cpp"
if "$exe" run --store "$tmp/store" --no-cache >"$tmp/run.log" 2>&1; then cat "$tmp/run.log" >&2; fail "a broken say.cpp built"; fi
grep -q "^$src/say.cpp:[0-9]*:[0-9]*: error" "$tmp/run.log" ||
    { cat "$tmp/run.log" >&2; fail "the compiler's error does not name $src/say.cpp"; }
grep -q "the rebuild failed" "$tmp/run.log" || { cat "$tmp/run.log" >&2; fail "no word that the rebuild failed"; }
tick
sed -i 's/std::fprintf(out undeclared_name/std::fprintf(out/' "$src/say.cpp"
run_edit
[ "$(said)" = "py-v2 CPP-V2 TWO" ] || { cat "$tmp/run.log" >&2; fail "the bundle did not recover"; }

step "a bundle moved away from where pipec wrote it refuses, naming the file and the commands"
cp -R "$tmp/bundle" "$tmp/moved"
rm -rf "$tmp/moved/build"
logged "$cmake" -S "$tmp/moved" -B "$tmp/moved/build" -G Ninja -DPIPE_WITH_CUDA=OFF
logged "$cmake" --build "$tmp/moved/build"
"$tmp/moved/build/edit" run --store "$tmp/store" --no-cache >"$tmp/run.log" 2>&1 || fail "the moved bundle, unchanged, did not run"
tick
sed -i 's/py-v2/py-v3/' "$src/scripts/shout.py"
if "$tmp/moved/build/edit" run --store "$tmp/store" >"$tmp/run.log" 2>&1; then cat "$tmp/run.log" >&2; fail "the moved bundle ran an old copy"; fi
grep -qF "pipe: error: $src/scripts/shout.py changed since this bundle was built" "$tmp/run.log" ||
    { cat "$tmp/run.log" >&2; fail "the refusal does not name shout.py"; }
grep -qF "$pipec build $src/edit.pipe -o $tmp/bundle --pipeline edit --target local" "$tmp/run.log" ||
    { cat "$tmp/run.log" >&2; fail "the refusal does not give the pipec command"; }

step "the build folder gone: a refusal too"
mv "$tmp/bundle/build" "$tmp/build-away"
PIPE_BUNDLE_DIR=$tmp/bundle "$tmp/build-away/edit" run --store "$tmp/store" >"$tmp/run.log" 2>&1 &&
    { cat "$tmp/run.log" >&2; fail "ran without its build folder"; }
grep -qF "its build folder $tmp/bundle/build, cmake or pipec is gone" "$tmp/run.log" ||
    { cat "$tmp/run.log" >&2; fail "the refusal does not say the build folder is gone"; }
mv "$tmp/build-away" "$tmp/bundle/build"

step "originals not on this machine (an image, a cluster): the bundle runs as it is"
mv "$src" "$tmp/src-away"
"$tmp/moved/build/edit" run --store "$tmp/store" --no-cache >"$tmp/run.log" 2>&1 ||
    { cat "$tmp/run.log" >&2; fail "a bundle without its originals did not run"; }
expect_quiet "a bundle without its originals tried to rebuild"
mv "$tmp/src-away" "$src"

ok=1
echo "run_rebuild: ok"
