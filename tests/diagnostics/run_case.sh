#!/usr/bin/env bash
# Runs one diagnostics case: `pipec <cmd> NAME.pipe <args>` from this folder
# (so printed paths are relative) and diffs the output with NAME.err.
# NAME.args, when present, holds extra arguments (first word may be a
# command: check, graph, build, fmt); the default is `check`.
# The exit status must be 1 when NAME.err reports an error, else 0.
# UPDATE_GOLDEN=1 rewrites NAME.err instead of comparing.
set -u
pipec=$1
dir=$2
name=$3
cd "$dir" || exit 2

cmd=check
args=()
if [ -f "$name.args" ]; then
    read -r -a args < "$name.args"
    case "${args[0]:-}" in
        check|graph|build|fmt) cmd=${args[0]}; args=("${args[@]:1}") ;;
    esac
fi
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
extra=()
[ "$cmd" = build ] && extra=(-o "$out_dir/bundle")
actual=$("$pipec" "$cmd" "$name.pipe" "${args[@]}" "${extra[@]}" 2>&1)
status=$?

if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
    printf '%s\n' "$actual" > "$name.err"
    echo "updated $name.err"
    exit 0
fi
if [ ! -f "$name.err" ]; then
    echo "missing $name.err (run with UPDATE_GOLDEN=1 and review it)"
    printf '%s\n' "$actual"
    exit 1
fi
expected_status=0
grep -qE '(error\[[EW][0-9]{4}\]|"severity":"error"|"level":"error")' "$name.err" && expected_status=1
if ! diff -u "$name.err" <(printf '%s\n' "$actual"); then
    echo "FAIL: output of pipec $cmd $name.pipe differs from $name.err"
    exit 1
fi
if [ "$status" != "$expected_status" ]; then
    echo "FAIL: pipec $cmd $name.pipe exited $status, expected $expected_status"
    exit 1
fi
exit 0
