#!/usr/bin/env bash
# Install what building and testing pipec needs, on Debian 12 (bookworm).
#
# Idempotent: each dependency is checked first (its command, its dpkg status
# or its pkg-config module) and only the missing ones are installed, with one
# line printed per package installed. Run as root, or as a user with sudo.
# Then the Python environment the tests and examples run command steps in:
# build/venv with torch, accelerate and numpy from PyPI (made once, reused;
# PIPEC_VENV names another folder).
#
#   bash scripts/install-deps.sh           install what is missing
#   bash scripts/install-deps.sh --check   only report what is missing (exit 1 if any)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

# "package  check|check..." where a check is cmd:NAME[,NAME...] (commands on
# PATH), pkg:NAME (dpkg says installed) or pc:MODULE (pkg-config knows it);
# a package is present when any one of its checks passes.
REQUIRED=(
    "build-essential cmd:gcc,make"
    "cmake           cmd:cmake"
    "ninja-build     cmd:ninja"
    "flex            cmd:flex"
    "bison           cmd:bison"
    "pkg-config      cmd:pkg-config"
    "libyaml-dev     pkg:libyaml-dev|pc:yaml-0.1"
    "clang           cmd:clang"
    "python3         cmd:python3"
    "python3-venv    pkg:python3-venv"
    "libopenblas-dev pc:openblas|pkg:libopenblas-dev"
    "jq              cmd:jq"
    "yamllint        cmd:yamllint"
    "shellcheck      cmd:shellcheck"
)

log() { printf 'install-deps: %s\n' "$*"; }
warn() { printf 'install-deps: warning: %s\n' "$*" >&2; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

check_only=0
case "${1:-}" in
    "") ;;
    --check) check_only=1 ;;
    -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
esac

pkg_installed() {
    command -v dpkg-query >/dev/null 2>&1 &&
        [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# passes CHECKS: true when one of the |-separated checks passes.
passes() {
    local alt kind arg cmd ok
    local -a alts cmds
    IFS='|' read -r -a alts <<<"$1"
    for alt in "${alts[@]}"; do
        kind=${alt%%:*} arg=${alt#*:}
        case "$kind" in
            cmd)
                ok=1
                IFS=',' read -r -a cmds <<<"$arg"
                for cmd in "${cmds[@]}"; do
                    command -v "$cmd" >/dev/null 2>&1 || { ok=0; break; }
                done
                [ "$ok" -eq 1 ] && return 0
                ;;
            pkg) pkg_installed "$arg" && return 0 ;;
            pc) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$arg" && return 0 ;;
            *) die "internal: bad check '$alt'" ;;
        esac
    done
    return 1
}

# as_root CMD...: run CMD as root, through sudo when not root (checked first,
# in need_root, so that the message is not lost in apt's log).
can_root() { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }
need_root() {
    can_root ||
        die "need to install: $*; not running as root and sudo is not installed: run this script as root"
}
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

aptlog=$(mktemp)
trap 'rm -f "$aptlog"' EXIT

apt_get() {
    if ! as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get -q -o DPkg::Lock::Timeout=300 "$@" >"$aptlog" 2>&1; then
        tail -n 20 "$aptlog" >&2
        die "'apt-get $*' failed (last lines above)"
    fi
}

updated=0
apt_update() {
    [ "$updated" -eq 1 ] && return 0
    command -v apt-get >/dev/null 2>&1 ||
        die "apt-get not found: this script supports Debian 12; install the packages above by hand"
    apt_get update
    updated=1
}

# apt_install PKG...: install and print one line per package.
apt_install() {
    apt_update
    apt_get install -y --no-install-recommends "$@"
    local p
    for p in "$@"; do log "installed $p"; done
}

# --- required packages ------------------------------------------------------
missing=()
for entry in "${REQUIRED[@]}"; do
    read -r pkg checks <<<"$entry"
    passes "$checks" || missing+=("$pkg")
done

# --- the Python environment of the command-step tests and examples ----------
# torch, accelerate and numpy from PyPI in a virtual environment under build/
# (tests find it there: CMake's PIPEC_VENV). Complete when it imports all three.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${PIPEC_VENV:-$root/build/venv}
PYTHON_PACKAGES=(torch accelerate numpy)
venv_ready() {
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import torch, accelerate, numpy' >/dev/null 2>&1
}

if [ "$check_only" -eq 1 ]; then
    venv_ready || missing+=("python environment $venv (${PYTHON_PACKAGES[*]})")
    if [ "${#missing[@]}" -gt 0 ]; then
        log "missing: ${missing[*]}"
        exit 1
    fi
    log "all required packages present"
    exit 0
fi

if [ "${#missing[@]}" -gt 0 ]; then
    need_root "${missing[*]}"
    apt_install "${missing[@]}"
    for entry in "${REQUIRED[@]}"; do
        read -r pkg checks <<<"$entry"
        passes "$checks" || die "$pkg was installed but '$checks' still fails"
    done
fi

# --- compiler-rt for clang (sanitizers, libFuzzer): optional -----------------
# The package name carries clang's major version; take the installed clang's,
# then Debian 12's, then the unversioned one, whichever apt knows.
if command -v dpkg-query >/dev/null 2>&1; then
    major=$(clang -dumpversion 2>/dev/null | cut -d. -f1 || true)
    candidates=()
    [ -n "$major" ] && candidates+=("libclang-rt-$major-dev")
    candidates+=(libclang-rt-14-dev libclang-rt-dev)
    have_rt=0
    for c in "${candidates[@]}"; do
        if pkg_installed "$c"; then have_rt=1; break; fi
    done
    if [ "$have_rt" -eq 0 ] && ! can_root; then
        warn "cannot install ${candidates[0]} (not root, no sudo); clang sanitizer and fuzzing builds will not link"
    elif [ "$have_rt" -eq 0 ]; then
        apt_update
        for c in "${candidates[@]}"; do
            if [ -n "$(apt-cache show "$c" 2>/dev/null)" ]; then
                apt_install "$c"
                have_rt=1
                break
            fi
        done
        [ "$have_rt" -eq 1 ] ||
            warn "none of ${candidates[*]} is available; clang sanitizer and fuzzing builds will not link"
    fi
fi

if ! venv_ready; then
    log "creating $venv with ${PYTHON_PACKAGES[*]} from PyPI (once; several GB)"
    piplog=$(mktemp)
    trap 'rm -f "$aptlog" "$piplog"' EXIT
    if ! { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } >"$piplog" 2>&1 ||
        ! "$venv/bin/python" -m pip install --disable-pip-version-check -q "${PYTHON_PACKAGES[@]}" >>"$piplog" 2>&1; then
        tail -n 20 "$piplog" >&2
        die "could not install ${PYTHON_PACKAGES[*]} into $venv (PyPI must be reachable)"
    fi
    venv_ready || die "$venv was made but does not import ${PYTHON_PACKAGES[*]}"
    log "installed $venv ($("$venv/bin/python" -c 'import torch, accelerate; print("torch", torch.__version__, "accelerate", accelerate.__version__)'))"
    updated=1
fi

if [ "${#missing[@]}" -eq 0 ] && [ "$updated" -eq 0 ]; then
    log "all dependencies present"
fi
