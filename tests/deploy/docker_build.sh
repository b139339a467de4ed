#!/usr/bin/env bash
# A real image build from a generated Dockerfile, and a run of the bundle in
# the image: podman_base.sh's store and Debian base, whose stand-in for
# `python3 -m pip` records its arguments. The bundle's docker/build.sh
# builds it with `podman build` (a stand-in named podman adds `--isolation
# chroot` and the test's store, and records the pushes). The generated
# Dockerfile installs only missing packages, so its apt steps have nothing
# to do and the build needs no network.
#
#   docker_build.sh PIPEC REPO_ROOT WORK_DIR
#
# The pipeline is docker_hello/hello.pipe: its @docker environment,
# requirements, index URLs and requirements file hold text that naive
# quoting would run or mangle; the run's `check` step, the recorded pip
# arguments and the image's copy of the requirements file show they arrived
# intact.
# A later run takes about 20 s.
set -u
pipec=$1
root=$2
# shellcheck source=tests/deploy/podman_base.sh
. "$(dirname "$0")/podman_base.sh"
podman_base_setup "$3"

status=0
# The bundle and its one Dockerfile.
bundle="$work/bundle"
registry=localhost/pipec-run
rm -rf "$bundle"
"$pipec" build "$root/tests/deploy/docker_hello/hello.pipe" -o "$bundle" --target docker || fail "pipec build"
dockerfiles=("$bundle"/docker/*/Dockerfile)
if [ ${#dockerfiles[@]} != 1 ] || [ ! -f "${dockerfiles[0]}" ]; then
    fail "expected one Dockerfile, found: ${dockerfiles[*]}"
fi
trap image_cleanup EXIT

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
