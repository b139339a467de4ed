#!/usr/bin/env bash
# Golden test of one case: `pipec build` the case's pipeline with every
# target, then diff each generated file with tests/golden/NAME/expected/.
# Copies (runtime/, src/user/) are checked for presence, not content; the
# `pipe` Python module (python/pipe/) must be the repository's
# runtime/python/pipe/ byte for byte. Presence only, too, for
# pipec-rebuild.cmake and pipec-inputs.txt, which hold this machine's
# paths, and pipec-files.txt, the list of every file written (runtime/
# among them).
# Image tags and Batch definition names digest the embedded runtime, so
# they are compared as numbered placeholders (placeholders.py: NAME:{TAG-1},
# batch/NAME-{DEFINITION-1}.json): a runtime-only change moves no golden
# file, and golden.tags_follow_runtime checks that it moves every digest.
# The build runs twice: the second must produce identical bytes and must
# not rewrite any file (mtimes unchanged). UPDATE_GOLDEN=1 rewrites expected/
# (in the placeholder form).
set -u
pipec=$1
root=$2      # repository root
name=$3
case_dir="$root/tests/golden/$name"
if [ -f "$case_dir/pipe_path" ]; then
    pipe="$root/$(cat "$case_dir/pipe_path")"
else
    pipe="$case_dir/case.pipe"
fi
# Pin what depends on the machine: the default CUDA image of GPU steps.
export PIPEC_CUDA_VERSION=12.4.1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
select=()
[ -f "$case_dir/pipeline" ] && select=(--pipeline "$(cat "$case_dir/pipeline")")
# Run from the .pipe's folder so banners and paths do not depend on where the repo is.
cd "$(dirname "$pipe")" || exit 2
if ! "$pipec" build "$(basename "$pipe")" "${select[@]}" -o "$work/out" --target all -MD -MF "$work/out.d" -MT bundle; then
    echo "FAIL: pipec build failed"
    exit 1
fi
generated() {
    (cd "$1" && find . -type f ! -path './runtime/*' ! -path './src/user/*' ! -path './python/*' ! -name pipec-rebuild.cmake ! -name pipec-inputs.txt \
        ! -name pipec-files.txt |
        sed 's|^\./||' | LC_ALL=C sort)
}

# with_placeholders DIR: the generated files of out/ into DIR, the digests
# that follow the runtime replaced in their names and contents.
with_placeholders() {
    generated "$work/out" | python3 "$root/tests/golden/placeholders.py" copy "$work/out" "$1" ||
        { echo "FAIL: placeholders.py"; exit 1; }
}

if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    rm -rf "$case_dir/expected"
    mkdir -p "$case_dir/expected"
    with_placeholders "$case_dir/expected"
    cp "$work/out.d" "$case_dir/expected/depfile.d"
    echo "updated $case_dir/expected"
    exit 0
fi

status=0
with_placeholders "$work/golden"
if ! diff <(generated "$work/golden") <(generated "$case_dir/expected" | grep -v '^depfile.d$'); then
    echo "FAIL: the set of generated files differs from expected/ (left: generated, with placeholders)"
    status=1
fi
while read -r f; do
    if ! diff -u "$case_dir/expected/$f" "$work/golden/$f"; then
        echo "FAIL: $f differs from expected/$f"
        status=1
    fi
done < <(generated "$case_dir/expected" | grep -v '^depfile.d$')
if ! diff -u "$case_dir/expected/depfile.d" "$work/out.d"; then
    echo "FAIL: the depfile differs"
    status=1
fi
[ -f "$work/out/runtime/CMakeLists.txt" ] || { echo "FAIL: no runtime copy"; status=1; }
diff -r "$root/runtime/python/pipe" "$work/out/python/pipe" ||
    { echo "FAIL: the bundle's python/pipe/ is not runtime/python/pipe/"; status=1; }
grep -qx "docker docker/build.sh" "$work/out/pipec-files.txt" 2>/dev/null ||
    { echo "FAIL: no pipec-files.txt listing docker/build.sh"; status=1; }
grep -q "^set(PIPEC_REBUILD_PIPE \"$(dirname "$pipe")/" "$work/out/pipec-rebuild.cmake" 2>/dev/null ||
    { echo "FAIL: no pipec-rebuild.cmake naming the .pipe file by its absolute path"; status=1; }

# Determinism and write-only-when-changed: a second build changes nothing.
find "$work/out" -type f -printf '%P %T@\n' | LC_ALL=C sort > "$work/mtimes1"
cp -r "$work/out" "$work/first"
sleep 0.01
"$pipec" build "$(basename "$pipe")" "${select[@]}" -o "$work/out" --target all -MD -MF "$work/out.d" -MT bundle || status=1
find "$work/out" -type f -printf '%P %T@\n' | LC_ALL=C sort > "$work/mtimes2"
if ! diff -r "$work/first" "$work/out" >/dev/null; then
    echo "FAIL: a second build produced different bytes"
    status=1
fi
if ! diff "$work/mtimes1" "$work/mtimes2" >/dev/null; then
    echo "FAIL: a second build rewrote unchanged files:"
    diff "$work/mtimes1" "$work/mtimes2" | head
    status=1
fi
[ $status = 0 ] && echo "golden $name: ok"
exit $status
