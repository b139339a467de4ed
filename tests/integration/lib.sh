# shellcheck shell=bash
# Shared by the integration scripts: a temporary directory, failures, an
# installed pipec, and file times for "was it rebuilt?" checks.

ok=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipec-integration.XXXXXX")
cleanup() {
    if [ "$ok" = 1 ]; then
        rm -rf "$tmp"
    else
        echo "(files left in $tmp)" >&2
    fi
}
trap cleanup EXIT

cmake=${CMAKE:-cmake}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() { echo "== $*"; }

# Runs a command with its output in $tmp/log; shows the log when it fails.
logged() {
    if ! "$@" >"$tmp/log" 2>&1; then
        cat "$tmp/log" >&2
        fail "command failed: $*"
    fi
}

# install_pipec BUILD_DIR: cmake --install into $tmp/prefix; sets $prefix.
install_pipec() {
    prefix=$tmp/prefix
    logged "$cmake" --install "$1" --prefix "$prefix"
    for f in bin/pipec include/pipe/pipe.h include/pipe/driver.h; do
        [ -e "$prefix/$f" ] || fail "cmake --install did not install $f"
    done
    libpipe=$(find "$prefix" -name libpipe.a | head -n 1)
    [ -n "$libpipe" ] || fail "cmake --install did not install libpipe.a"
    config=$(find "$prefix" -name pipecConfig.cmake | head -n 1)
    [ -n "$config" ] || fail "cmake --install did not install pipecConfig.cmake"
    for f in pipecConfigVersion.cmake pipecTargets.cmake PipecAddPipeline.cmake; do
        [ -e "$(dirname "$config")/$f" ] || fail "cmake --install did not install $f next to pipecConfig.cmake"
    done
}

# file_times FILE...: one "path time" line per file (nanoseconds where the file
# system has them); a missing file reads "missing".
file_times() {
    for f in "$@"; do
        if [ -e "$f" ]; then
            echo "$f $(stat -c %y "$f")"
        else
            echo "$f missing"
        fi
    done
}

# PATH without any directory holding a pipec executable.
path_without_pipec() {
    local out="" d
    local IFS=:
    for d in $PATH; do
        [ -n "$d" ] && [ -x "$d/pipec" ] && continue
        out=${out:+$out:}$d
    done
    printf '%s' "$out"
}

# Make's and Ninja's time stamps need the clock to move on between a build
# and a touch on file systems with coarse times.
tick() { sleep 1; }
