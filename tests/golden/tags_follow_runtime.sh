#!/usr/bin/env bash
# What the goldens' placeholders leave out, checked here: run_golden.sh
# compares image tags and Batch job definition names as {TAG-n} and
# {DEFINITION-n} (placeholders.py), so that a runtime-only commit moves no
# golden file. For every golden case:
#  - an unchanged build keeps every tag and definition name (the whole
#    bundle, byte for byte);
#  - a change to the embedded runtime gives every image a new tag and every
#    job definition a new name, keeping the names before the digests, which
#    digest goes where, and all else: with placeholders, the two bundles
#    are the same but for runtime/, which differs in the one edited byte.
#
#   tags_follow_runtime.sh PIPEC REPO_ROOT
#
# How the runtime changes at test time: pipec carries the runtime's sources
# as their bytes (cmake/embed.cmake), copies them into the bundle, and each
# tag digests that copy (compiler/gen/bundle_images.c), each definition name
# its text with the tag. edit_embedded_runtime.py edits one letter of a
# comment of a runtime .c file in a copy of the pipec binary: the pipec that
# a commit editing that comment would build, with no second build of pipec
# and no hook in pipec for tests. The bundle's copy of that file shows the
# edit arrived.
set -u
pipec=$(realpath "$1")
root=$2
here=$root/tests/golden
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() {
    echo "FAIL: $*"
    status=1
}

# build PIPEC DEST: the case's bundle, built into out/ (so that both builds
# name the same folder) and moved to DEST.
build() {
    if ! (cd "$(dirname "$pipe")" &&
        "$1" build "$(basename "$pipe")" "${select[@]}" -o "$work/out" --target all) >"$work/build.log" 2>&1; then
        cat "$work/build.log"
        fail "$name: $1 build failed"
        return 1
    fi
    rm -rf "$2"
    mv "$work/out" "$2"
}
# The files compared: all but the runtime's copy and the two that name the
# pipec binary that built them.
compared() {
    (cd "$1" && find . -type f ! -path './runtime/*' ! -name pipec-rebuild.cmake ! -name pipec-inputs.txt |
        sed 's|^\./||' | LC_ALL=C sort)
}
# digests DIR: KIND NAME DIGEST PLACEHOLDER, each digest once.
digests() { compared "$1" | python3 "$here/placeholders.py" list "$1"; }
with_placeholders() { compared "$1" | python3 "$here/placeholders.py" copy "$1" "$2"; }

edited=$work/pipec-edited
source_rel=
tags=0
definitions=0
ncases=0
for case_dir in "$here"/*/; do
    case_dir=${case_dir%/}
    name=$(basename "$case_dir")
    if [ -f "$case_dir/pipe_path" ]; then
        pipe="$root/$(cat "$case_dir/pipe_path")"
    elif [ -f "$case_dir/case.pipe" ]; then
        pipe="$case_dir/case.pipe"
    else
        continue
    fi
    select=()
    [ -f "$case_dir/pipeline" ] && select=(--pipeline "$(cat "$case_dir/pipeline")")
    ncases=$((ncases + 1))
    a=$work/$name.a b=$work/$name.b
    build "$pipec" "$a" || continue
    build "$pipec" "$a.again" || continue
    if ! diff -r "$a" "$a.again" >/dev/null; then
        fail "$name: building again with the same pipec changed the bundle:"
        diff -rq "$a" "$a.again" | head
        continue
    fi

    # The edited pipec, once: the first runtime .c file of the bundle.
    if [ -z "$source_rel" ]; then
        source_rel=$(cd "$a" && find runtime/src -name '*.c' | LC_ALL=C sort | head -1)
        [ -n "$source_rel" ] || { fail "no runtime/src/*.c in the bundle"; break; }
        offset=$(python3 "$here/edit_embedded_runtime.py" "$pipec" "$a/$source_rel" "$edited") ||
            { fail "could not edit the embedded $source_rel"; break; }
        echo "the edited pipec: one letter of $source_rel (byte $offset) changes case"
    fi
    build "$edited" "$b" || continue

    # The edit reached the bundle: its runtime/ differs in that byte only.
    changed=$(diff -rq "$a/runtime" "$b/runtime")
    if [ "$changed" != "Files $a/$source_rel and $b/$source_rel differ" ]; then
        fail "$name: runtime/ should differ in $source_rel only: ${changed:-no difference}"
        continue
    fi
    bytes=$(cmp -l "$a/$source_rel" "$b/$source_rel" | awk '{print $1 - 1}')
    [ "$bytes" = "$offset" ] || fail "$name: $source_rel differs at bytes $bytes, not $offset"

    digests "$a" >"$work/a.list"
    digests "$b" >"$work/b.list"
    ntags=$(grep -c '^TAG ' "$work/a.list")
    ndefinitions=$(grep -c '^DEFINITION ' "$work/a.list")
    if [ "$ntags" = 0 ] || [ "$ndefinitions" = 0 ]; then
        fail "$name: $ntags image tags and $ndefinitions definition names: nothing to check"
    fi
    # The same names and numbering, in both bundles ...
    if ! diff <(cut -d' ' -f1,2,4 "$work/a.list") <(cut -d' ' -f1,2,4 "$work/b.list"); then
        fail "$name: the images or definitions (left) are not those of the edited runtime's bundle (right)"
    fi
    # ... each with a new digest, and no old digest left anywhere.
    kept=$(paste -d' ' "$work/a.list" "$work/b.list" | awk '$3 == $7 {printf "%s %s:%s; ", $1, $2, $3}')
    [ -z "$kept" ] || fail "$name: kept with the runtime changed: $kept"
    old=$(cd "$b" && cut -d' ' -f3 "$work/a.list" | grep -rlF -f - . --exclude-dir=runtime | LC_ALL=C sort | tr '\n' ' ')
    [ -z "$old" ] || fail "$name: the edited runtime's bundle still holds an old digest in: $old"
    # All else is the same: what the goldens compare does not move.
    with_placeholders "$a" "$a.placeholders"
    with_placeholders "$b" "$b.placeholders"
    if ! diff -r "$a.placeholders" "$b.placeholders"; then
        fail "$name: with placeholders, the bundles differ (above): more than the digests moved"
    fi
    tags=$((tags + ntags))
    definitions=$((definitions + ndefinitions))
    echo "ok   $name: image tags ($ntags) and definition names ($ndefinitions) move with the runtime, and stay without it"
    rm -rf "$a" "$a.again" "$b" "$a.placeholders" "$b.placeholders"
done
[ "$ncases" -ge 1 ] || fail "no golden case under $here"
[ $status = 0 ] && echo "tags_follow_runtime: ok ($ncases cases, $tags image tags, $definitions definition names)"
exit $status
