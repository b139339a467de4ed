#!/usr/bin/env bash
# Checks on the documentation that keep it true as the code moves:
#
#   docs_check.sh self-contained REPO_ROOT
#       nothing in the repository points at files outside it (the
#       specification's file names, a shared folder of the machine it was
#       written on);
#   docs_check.sh step-api REPO_ROOT
#       every function and type a step uses, declared in
#       runtime/include/pipe/{pipe,npy,precision}.h, is in docs/step-api.md.
set -u
what=$1
root=$2
cd "$root" || exit 2
case "$what" in
self-contained)
    # The names are split so that this file does not match itself.
    pattern='(BUNDLE|LANGUAGE|STYLE)\.md|shared/(spec|notes)|/work/'"shared"
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        hits=$(git grep -nE "$pattern" -- . ':!tests/docs_check.sh')
    else
        hits=$(grep -rnE "$pattern" --exclude-dir=build --exclude-dir='build-*' --exclude=docs_check.sh . )
    fi
    if [ -n "$hits" ]; then
        printf 'FAIL: these lines point at files outside the repository; say it here, or point at docs/:\n%s\n' "$hits"
        exit 1
    fi
    echo "ok: nothing points outside the repository"
    ;;
step-api)
    missing=()
    names=$(sed -n 's/^[^#/ ][^(]*[ *]\(pipe_[a-z0-9_]*\)(.*/\1/p; s/^typedef .* \(pipe_[a-z0-9_]*\);$/\1/p;
                    s/^} \(pipe_[a-z0-9_]*\);$/\1/p' \
        runtime/include/pipe/pipe.h runtime/include/pipe/npy.h runtime/include/pipe/precision.h | sort -u)
    for name in $names; do
        grep -q "\b$name\b" docs/step-api.md || missing+=("$name")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "FAIL: docs/step-api.md does not describe: ${missing[*]}"
        exit 1
    fi
    echo "ok: docs/step-api.md describes all $(wc -w <<<"$names") names"
    ;;
*)
    echo "usage: docs_check.sh self-contained|step-api REPO_ROOT" >&2
    exit 2
    ;;
esac
