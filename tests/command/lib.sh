# shellcheck shell=bash
# Shared by the command-step tests: arguments, the Python environment with
# torch and Accelerate (scripts/install-deps.sh makes it; CMake passes its
# path in PIPEC_VENV), building a bundle, and the checks.
#   TEST PIPEC SRC_DIR WORK
pipec=$1
# shellcheck disable=SC2034 # used by the scripts that source this file
src_dir=$2
work=$3
venv=${PIPEC_VENV:?PIPEC_VENV names the Python environment (CMake sets it)}
# Committed artifacts are read-only folders (docs/runtime.md): writable again before rm.
[ ! -d "$work" ] || chmod -R u+w "$work"
rm -rf "$work"
mkdir -p "$work"
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}

if ! "$venv/bin/python" -c 'import torch, accelerate, numpy' 2>/dev/null; then
    echo "FAIL: no Python environment with torch, accelerate and numpy at $venv: run scripts/install-deps.sh"
    exit 1
fi
# The steps run `python3`: the environment's, as a user's activated venv.
export PATH="$venv/bin:$PATH"
unset MASTER_PORT MASTER_ADDR
export PIPE_KILL_GRACE_MS=1000

# build_bundle PIPE_FILE NAME [CMAKE_ARGS...]: sets exe to the bundle's executable.
build_bundle() {
    local pipe_file=$1 name=$2
    shift 2
    local -a generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    "$pipec" build "$pipe_file" -o "$work/$name" --target local >"$work/$name.pipec.log" 2>&1 ||
        { cat "$work/$name.pipec.log"; echo "FAIL: pipec build $pipe_file"; exit 1; }
    { cmake -S "$work/$name" -B "$work/$name/build" "${generator[@]}" "$@" >"$work/$name.cmake.log" 2>&1 &&
        cmake --build "$work/$name/build" >>"$work/$name.cmake.log" 2>&1; } ||
        { tail -30 "$work/$name.cmake.log"; echo "FAIL: building the bundle of $pipe_file"; exit 1; }
    # shellcheck disable=SC2034 # used by the scripts that source this file
    exe="$work/$name/build/$(sed -n 's/^pipeline: //p' "$work/$name/bundle.yaml")"
}

# json FILE EXPR: a value of a JSON file, by a Python expression over `d`.
# A tuple prints as its items separated by spaces.
json() {
    "$venv/bin/python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(" ".join(map(str, v)) if isinstance(v, tuple) else v)' "$1" "$2"
}
