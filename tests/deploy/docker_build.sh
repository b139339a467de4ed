#!/usr/bin/env bash
# A real image build from a generated Dockerfile, and a run of the bundle in
# the image. Without a Docker engine: the bundle's docker/build.sh builds it
# with `podman build` (a stand-in named podman adds `--isolation chroot` and
# the test's store, and records the pushes) and `buildah run --isolation
# chroot` runs it.
# Nothing can be pulled, so the base image is made here: debootstrap
# bookworm (minbase) with the toolchain and libyaml the Dockerfile asks for,
# and a stand-in for `python3 -m pip` that records its arguments. The
# generated Dockerfile installs only missing packages, so its apt steps
# have nothing to do and the build needs no network.
#
#   docker_build.sh PIPEC REPO_ROOT WORK_DIR
#
# The pipeline is docker_hello/hello.pipe: its @docker environment,
# requirements, index URLs and requirements file hold text that naive
# quoting would run or mangle; the run's `check` step, the recorded pip
# arguments and the image's copy of the requirements file show they arrived
# intact.
#
# Podman and buildah use their own store under WORK_DIR/docker-build, which
# keeps the base image between runs (debootstrap takes about a minute; a
# later run takes about 20 s). podman, buildah and debootstrap come from
# scripts/install-deps.sh; a missing one fails the test. Where podman cannot
# work (no user namespaces, no mirror for debootstrap) the test is skipped
# (exit 77) with the reason, and scripts/test.sh counts that as a failure.
# CMake registers the test only where it runs as root or with passwordless
# sudo (debootstrap needs it). PIPEC_DEBIAN_MIRROR picks the Debian mirror.
set -u
pipec=$1
root=$2
work=$3/docker-build
base=localhost/pipec-test:bookworm
registry=localhost/pipec-run
recipe=3 # bump when what goes into the base image changes
packages=cmake,make,gcc,libc6-dev,libyaml-dev,libyaml-0-2,libssl-dev,libssl3
# The mirror apt uses on this machine (a CI machine may only reach its own),
# else Debian's.
apt_mirror=$(sed -n 's|^URIs: *\(.*/debian\)/*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$apt_mirror" ] || apt_mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
mirror=${PIPEC_DEBIAN_MIRROR:-${apt_mirror:-http://deb.debian.org/debian}}
mkdir -p "$work"

skip() {
    echo "SKIP: $*"
    exit 77
}
fail() {
    echo "FAIL: $*"
    exit 1
}

sudo=
if [ "$(id -u)" != 0 ]; then
    if sudo -n true 2>/dev/null; then
        sudo="sudo -n"
    fi
fi

# ensure_tool COMMAND PACKAGE: fails the test when COMMAND is missing (tests
# install nothing).
ensure_tool() {
    command -v "$1" >/dev/null && return 0
    fail "$1 is not installed (package $2): run scripts/install-deps.sh"
}
ensure_tool podman podman
ensure_tool buildah buildah

# A store of our own: the host's images are not touched, and the base image
# stays here between runs. Overlay where it works, else vfs (slower). Each
# driver gets its own folders, so a failed overlay attempt (a mount it left
# behind, a database that names overlay) cannot spoil the vfs one; podman's
# temporary folder and events stay in WORK_DIR too, away from /run.
# podman_args DRIVER: sets store (podman and buildah) and pod (podman only).
# The run root's path may be at most 50 characters (podman refuses longer
# ones), and WORK_DIR may be deep: run state goes to a short folder in /tmp
# named after WORK_DIR (the same for every run, as podman's database wants).
short=/tmp/pipec-podman-$(printf '%s' "$work" | sha256sum | cut -c1-12)
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
# The driver that worked last time, else overlay, else vfs. A store that no
# longer opens (made by an older version of this test, or before the build
# folder moved: podman's database names its paths) is made again, once.
driver=
candidates=(overlay vfs)
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
    why=$(grep -m1 -i 'error' "$work/podman-$d.log" || tail -1 "$work/podman-$d.log")
    rm -f "$work/driver"
    skip "podman cannot use a store here (storage driver $d: $why)"
fi
podman() { command podman "${store[@]}" "${pod[@]}" "$@"; }
buildah() { command buildah "${store[@]}" "$@"; }
echo "$driver" >"$work/driver"

# The base image, made once.
if [ "$(podman image inspect --format '{{index .Labels "io.pipec.test-recipe"}}' "$base" 2>/dev/null)" != "$recipe" ]; then
    ensure_tool debootstrap debootstrap
    # Debian's signing keys (debian-archive-keyring, from scripts/install-deps.sh).
    keyring=()
    if [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
        keyring=(--keyring /usr/share/keyrings/debian-archive-keyring.gpg)
    fi
    [ -n "$sudo" ] || [ "$(id -u)" = 0 ] || skip "debootstrap needs root or passwordless sudo"
    rootfs="$work/rootfs"
    $sudo rm -rf "$rootfs"
    echo "debootstrap bookworm from $mirror (about a minute)"
    if ! $sudo debootstrap --variant=minbase "${keyring[@]}" --include="$packages" bookworm "$rootfs" "$mirror" \
        >"$work/debootstrap.log" 2>&1; then
        tail -20 "$work/debootstrap.log"
        $sudo rm -rf "$rootfs"
        skip "debootstrap bookworm from $mirror failed (set PIPEC_DEBIAN_MIRROR?)"
    fi
    # Stands in for python3 (nothing can be downloaded in the build): `-m
    # ensurepip --version` and `-m venv DIR` as a venv-capable Python, and
    # `-m pip` records its arguments, failing if a requirement was run as a
    # command. A venv's python3 is this same script.
    $sudo tee "$rootfs/usr/local/bin/python3" >/dev/null <<'EOF'
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
EOF
    $sudo chmod 755 "$rootfs/usr/local/bin/python3"
    $sudo rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc \
        "$rootfs"/usr/share/man "$rootfs"/usr/share/locale
    if ! $sudo tar -C "$rootfs" -c . | podman import --change "LABEL io.pipec.test-recipe=$recipe" - "$base" \
        >"$work/import.log" 2>&1; then
        cat "$work/import.log"
        fail "podman import of the debootstrap rootfs failed"
    fi
    $sudo rm -rf "$rootfs"
fi

# The bundle and its one Dockerfile.
bundle="$work/bundle"
rm -rf "$bundle"
"$pipec" build "$root/tests/deploy/docker_hello/hello.pipe" -o "$bundle" --target docker || fail "pipec build"
dockerfiles=("$bundle"/docker/*/Dockerfile)
if [ ${#dockerfiles[@]} != 1 ] || [ ! -f "${dockerfiles[0]}" ]; then
    fail "expected one Dockerfile, found: ${dockerfiles[*]}"
fi

status=0
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    [ -n "${ctr:-}" ] && buildah rm "$ctr" >/dev/null 2>&1
    [ -n "${image:-}" ] && podman rmi -f "$image" >/dev/null 2>&1
    podman image prune -f >/dev/null 2>&1
}
trap cleanup EXIT

# The image's name, as docker/build.sh gives it: REGISTRY/NAME:TAG.
# shellcheck disable=SC2016 # the script's text, not this one's variable
name=$(sed -n 's|^image docker/[^ ]*/Dockerfile "\$PIPE_REGISTRY/\(.*\)"$|\1|p' "$bundle/docker/build.sh")
[ -n "$name" ] || fail "no image line in docker/build.sh"
image=$registry/$name
case $image in *:latest) fail "the image is tagged latest: $image" ;; esac
# podman as docker/build.sh finds it first on PATH: the real one with this
# test's store, chroot isolation and no pulls; `push` is recorded, not done.
shim="$work/shim"
mkdir -p "$shim"
# shellcheck disable=SC2016 # the stand-in's own "$1" and "$@"
{
    echo '#!/bin/sh'
    printf 'if [ "$1" = push ]; then echo "$2" >>%q; exit 0; fi\n' "$work/pushed"
    printf 'if [ "$1" = build ]; then shift; set -- build --isolation chroot --pull=never "$@"; fi\n'
    printf 'exec %q' "$(type -P podman)"
    printf ' %q' "${store[@]}" "${pod[@]}"
    printf ' "$@"\n'
} >"$shim/podman"
chmod 755 "$shim/podman"
rm -f "$work/pushed"
echo "PIPE_REGISTRY=$registry docker/build.sh (podman build --isolation chroot -f ${dockerfiles[0]#"$bundle/"})"
if ! PATH="$shim:$PATH" PIPE_REGISTRY=$registry PIPE_CONTAINER_ENGINE='' "$bundle/docker/build.sh" \
    >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    if grep -qiE "user namespace|newuidmap|operation not permitted" "$work/build.log"; then
        skip "podman build cannot create its chroot here (see above)"
    fi
    fail "docker/build.sh"
fi
if [ "$(cat "$work/pushed" 2>/dev/null)" = "$image" ]; then
    echo "ok   docker/build.sh built and pushed $image"
else
    fail "docker/build.sh pushed $(cat "$work/pushed" 2>/dev/null), expected $image"
fi

# The image's configuration.
check_config() {
    local what=$1 expected=$2 got
    got=$(podman image inspect --format "{{json .Config.$what}}" "$image")
    if [ "$got" = "$expected" ]; then
        echo "ok   $what $got"
    else
        echo "FAIL: $what is $got, expected $expected"
        status=1
    fi
}
check_config User '"10001:10001"'
check_config Entrypoint '["/opt/pipe/bin/hello"]'
check_config Cmd '["describe"]'
check_config WorkingDir '"/pipe"'

# Run the bundle in it: the whole pipeline, then the default command.
ctr=$(buildah from --pull=never "$image") || fail "buildah from $image"
if buildah run --isolation chroot "$ctr" -- /opt/pipe/bin/hello run --store /tmp/store >"$work/run.log" 2>&1; then
    echo "ok   hello run (in the image, as uid 10001)"
else
    cat "$work/run.log"
    echo "FAIL: the bundle's run in the image"
    status=1
fi
if buildah run --isolation chroot "$ctr" -- /opt/pipe/bin/hello run >"$work/run-default.log" 2>&1 &&
    grep -q "store /pipe/store" "$work/run-default.log"; then
    echo "ok   hello run with the image's PIPE_STORE"
else
    cat "$work/run-default.log"
    echo "FAIL: the run with the default store"
    status=1
fi
if buildah run --isolation chroot "$ctr" -- /opt/pipe/bin/hello describe >"$work/describe.log" 2>&1; then
    echo "ok   hello describe"
else
    cat "$work/describe.log"
    echo "FAIL: hello describe"
    status=1
fi
# The command step ran in the image's copy of its folder.
if buildah run --isolation chroot "$ctr" -- sh -c 'cat /tmp/store/*/greet/outputs/card' >"$work/card" 2>&1 &&
    grep -q "greeting n=3 in /opt/pipe/share/pipe/hello/src/user" "$work/card"; then
    echo "ok   greet (a command step) ran in /opt/pipe/share/pipe/hello/src/user"
else
    cat "$work/card"
    echo "FAIL: the command step's output"
    status=1
fi
if buildah run --isolation chroot "$ctr" -- test -x /opt/pipe/venv/bin/python3; then
    echo "ok   the requirements' virtual environment"
else
    echo "FAIL: no /opt/pipe/venv in the image"
    status=1
fi
# The requirements reached pip as written (one argument each), after the
# index URLs and the requirements file.
# (docker_hello/pip-args.txt: what follows `pip install --no-cache-dir`.)
{
    printf 'install\n--no-cache-dir\n'
    cat "$root/tests/deploy/docker_hello/pip-args.txt"
} >"$work/pip-args.expected"
if buildah run --isolation chroot "$ctr" -- cat /opt/pip-args >"$work/pip-args" 2>"$work/pip-args.err" &&
    diff -u "$work/pip-args.expected" "$work/pip-args"; then
    echo "ok   pip arguments"
else
    echo "FAIL: the pip arguments differ (above)"
    status=1
fi
# The requirements file pip was given is hello.pipe's, byte for byte.
if buildah run --isolation chroot "$ctr" -- cat /opt/pipe/requirements.txt >"$work/requirements.txt" 2>&1 &&
    cmp -s "$work/requirements.txt" "$root/tests/deploy/docker_hello/requirements.txt"; then
    echo "ok   the requirements file in the image"
else
    cat "$work/requirements.txt"
    echo "FAIL: /opt/pipe/requirements.txt differs from docker_hello/requirements.txt"
    status=1
fi
[ ! -e /tmp/pwned ] || echo "note: /tmp/pwned exists on this machine (not made by this test, which checks the image)"
[ $status = 0 ] && echo "docker build: ok"
exit $status
