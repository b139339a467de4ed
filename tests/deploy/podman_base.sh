# shellcheck shell=bash
# Shared by the real image builds (docker_build.sh, docker_pypi.sh): a
# podman store of their own and the Debian base image they build on.
# Without a Docker engine: `podman build --isolation chroot` builds from a
# generated Dockerfile (RUN steps included) and `buildah run --isolation
# chroot` runs the result. Nothing is pulled: the base is made here, once,
# with debootstrap bookworm (minbase) holding the toolchain and libyaml the
# Dockerfile asks for, python3 with venv and pip, and a stand-in for
# `python3` in /usr/local/bin that records pip's arguments instead of
# downloading (docker_build.sh's requirements are not real packages;
# docker_pypi.sh removes it and installs from the index).
#
#   podman_base_setup WORK_DIR
#
# sets work (WORK_DIR/docker-build, where the store and the logs live),
# base (the base image's name) and sudo, and defines podman and buildah
# with the store's arguments; image_build then builds a pipeline's image. Podman and buildah keep the store under WORK
# between runs (debootstrap takes a minute or two; a later run skips it).
# podman, buildah and debootstrap come from scripts/install-deps.sh; a
# missing one fails the test. Where podman cannot work (no user
# namespaces, no mirror for debootstrap) the test is skipped (exit 77) with
# the reason, and scripts/test.sh counts that as a failure. The tests are
# registered only where they run as root or with passwordless sudo
# (debootstrap needs it); PIPEC_DEBIAN_MIRROR picks the Debian mirror.

skip() {
    echo "SKIP: $*"
    exit 77
}
fail() {
    echo "FAIL: $*"
    exit 1
}

# ensure_tool COMMAND PACKAGE: fails the test when COMMAND is missing (tests
# install nothing).
ensure_tool() {
    command -v "$1" >/dev/null && return 0
    fail "$1 is not installed (package $2): run scripts/install-deps.sh"
}

podman_base_setup() {
    work=$1/docker-build
    base=localhost/pipec-test:bookworm
    local recipe=4 # bump when what goes into the base image changes
    local packages=cmake,make,gcc,libc6-dev,libyaml-dev,libyaml-0-2,libssl-dev,libssl3,python3,python3-venv
    # The mirror apt uses on this machine (a CI machine may only reach its
    # own), else Debian's.
    local apt_mirror mirror
    apt_mirror=$(sed -n 's|^URIs: *\(.*/debian\)/*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
    [ -n "$apt_mirror" ] ||
        apt_mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
    mirror=${PIPEC_DEBIAN_MIRROR:-${apt_mirror:-http://deb.debian.org/debian}}
    mkdir -p "$work"

    sudo=
    if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    fi
    ensure_tool podman podman
    ensure_tool buildah buildah

    # A store of our own: the host's images are not touched, and the base
    # image stays here between runs. Overlay where it works, else vfs
    # (slower). Each driver gets its own folders, so a failed overlay
    # attempt (a mount it left behind, a database that names overlay) cannot
    # spoil the vfs one; podman's temporary folder and events stay in
    # WORK_DIR too, away from /run. The run root's path may be at most 50
    # characters (podman refuses longer ones), and WORK_DIR may be deep: run
    # state goes to a short folder in /tmp named after WORK_DIR (the same
    # for every run, as podman's database wants).
    short=/tmp/pipec-podman-$(printf '%s' "$work" | sha256sum | cut -c1-12)
    # The driver that worked last time, else overlay, else vfs. A store that
    # no longer opens (made by an older version of this test, or before the
    # build folder moved: podman's database names its paths) is made again,
    # once.
    local driver='' d
    local candidates=(overlay vfs)
    [ -f "$work/driver" ] && candidates=("$(cat "$work/driver")" "${candidates[@]}")
    # What older versions of this test kept in WORK_DIR itself.
    rm -rf "$work/store" "$work/run" "$work"/run-* "$work"/tmp-* 2>/dev/null
    for d in "${candidates[@]}"; do
        if podman_works "$d" || { reset_store "$d" && podman_works "$d"; }; then
            driver=$d
            break
        fi
        reset_store "$d"
    done
    if [ -z "$driver" ]; then
        d=${candidates[${#candidates[@]} - 1]}
        cat "$work"/podman-*.log 2>/dev/null
        local why
        why=$(grep -m1 -i 'error' "$work/podman-$d.log" || tail -1 "$work/podman-$d.log")
        rm -f "$work/driver"
        skip "podman cannot use a store here (storage driver $d: $why)"
    fi
    podman_args "$driver"
    echo "$driver" >"$work/driver"

    if [ "$(podman image inspect --format '{{index .Labels "io.pipec.test-recipe"}}' "$base" 2>/dev/null)" != "$recipe" ]; then
        make_base "$mirror" "$packages" "$recipe"
    fi
}

# podman_args DRIVER: sets store (podman and buildah) and pod (podman only).
podman_args() {
    store=(--root "$work/store-$1" --runroot "$short/run-$1" --storage-driver "$1")
    pod=(--tmpdir "$short/tmp-$1" --events-backend none --cgroup-manager cgroupfs)
}
# podman_works DRIVER: whether podman can list images in DRIVER's store; its
# error, if any, ends up in $work/podman-DRIVER.log.
podman_works() {
    podman_args "$1"
    command podman "${store[@]}" "${pod[@]}" images >"$work/podman-$1.log" 2>&1
}
# reset_store DRIVER: removes DRIVER's store and run state, and any mount a
# failed attempt left that would keep them busy.
reset_store() {
    grep -oE " ($work/store-$1|$short/(run|tmp)-$1)[^ ]*" /proc/mounts 2>/dev/null | sort -r |
        while read -r m; do umount "$m" 2>/dev/null; done
    rm -rf "$work/store-$1" "$short/run-$1" "$short/tmp-$1" 2>/dev/null
}
podman() { command podman "${store[@]}" "${pod[@]}" "$@"; }
buildah() { command buildah "${store[@]}" "$@"; }

# make_base MIRROR PACKAGES RECIPE: the base image, made with debootstrap.
make_base() {
    local mirror=$1 packages=$2 recipe=$3
    ensure_tool debootstrap debootstrap
    # Debian's signing keys (debian-archive-keyring, from scripts/install-deps.sh).
    local keyring=()
    if [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
        keyring=(--keyring /usr/share/keyrings/debian-archive-keyring.gpg)
    fi
    [ -n "$sudo" ] || [ "$(id -u)" = 0 ] || skip "debootstrap needs root or passwordless sudo"
    local rootfs="$work/rootfs"
    $sudo rm -rf "$rootfs"
    echo "debootstrap bookworm from $mirror (a minute or two)"
    if ! $sudo debootstrap --variant=minbase "${keyring[@]}" --include="$packages" bookworm "$rootfs" "$mirror" \
        >"$work/debootstrap.log" 2>&1; then
        tail -20 "$work/debootstrap.log"
        $sudo rm -rf "$rootfs"
        skip "debootstrap bookworm from $mirror failed (set PIPEC_DEBIAN_MIRROR?)"
    fi
    # Stands in for python3 (docker_build.sh's requirements cannot be
    # downloaded): `-m ensurepip --version` and `-m venv DIR` as a
    # venv-capable Python, and `-m pip` records its arguments, failing if a
    # requirement was run as a command. A venv's python3 is this same script.
    $sudo tee "$rootfs/usr/local/bin/python3" >/dev/null <<'STANDIN'
#!/bin/sh
# pipec tests: a stand-in for python3's venv and pip.
[ "$1" = -m ] || exit 1
module=$2
shift 2
case $module in
ensurepip) echo "pip 0 (pipec test stand-in)"; exit 0 ;;
venv)
    for dir in "$@"; do :; done
    mkdir -p "$dir/bin" && cp "$0" "$dir/bin/python3" && exit 0
    exit 1 ;;
pip) ;;
*) exit 1 ;;
esac
if [ "$1" = --version ]; then echo "pip 0 (pipec test stand-in)"; exit 0; fi
if [ -e /tmp/pwned ]; then echo "/tmp/pwned exists: a requirement was run as a command" >&2; exit 1; fi
printf '%s\n' "$@" > /opt/pip-args
STANDIN
    $sudo chmod 755 "$rootfs/usr/local/bin/python3"
    $sudo rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc \
        "$rootfs"/usr/share/man "$rootfs"/usr/share/locale
    if ! $sudo tar -C "$rootfs" -c . | podman import --change "LABEL io.pipec.test-recipe=$recipe" - "$base" \
        >"$work/import.log" 2>&1; then
        cat "$work/import.log"
        fail "podman import of the debootstrap rootfs failed"
    fi
    $sudo rm -rf "$rootfs"
}

# image_build PIPEC PIPE_FILE BUNDLE IMAGE LOG: `PIPEC build --target docker`
# of PIPE_FILE into BUNDLE, then its one Dockerfile built into IMAGE, which is
# removed at exit (with ctr, a buildah container, when the caller sets it).
# Returns 1 after printing the end of LOG when podman build fails.
image_build() {
    local pipec=$1 pipe=$2 bundle=$3 log=$5
    image=$4
    rm -rf "$bundle"
    "$pipec" build "$pipe" -o "$bundle" --target docker || fail "pipec build"
    local dockerfiles=("$bundle"/docker/*/Dockerfile)
    if [ ${#dockerfiles[@]} != 1 ] || [ ! -f "${dockerfiles[0]}" ]; then
        fail "expected one Dockerfile, found: ${dockerfiles[*]}"
    fi
    trap image_cleanup EXIT
    echo "podman build --isolation chroot -f ${dockerfiles[0]#"$bundle/"}"
    if ! podman build --isolation chroot --pull=never -f "${dockerfiles[0]}" -t "$image" "$bundle" >"$log" 2>&1; then
        tail -40 "$log"
        if grep -qiE "user namespace|newuidmap|operation not permitted" "$log"; then
            skip "podman build cannot create its chroot here (see above)"
        fi
        return 1
    fi
}
# shellcheck disable=SC2317 # called by the trap
image_cleanup() {
    [ -n "${ctr:-}" ] && buildah rm "$ctr" >/dev/null 2>&1
    podman rmi -f "$image" >/dev/null 2>&1
    podman image prune -f >/dev/null 2>&1
}
