#!/usr/bin/env bash
# A real image build from a generated Dockerfile, and a run of the bundle in
# the image: podman_base.sh's store and Debian base, whose stand-in for
# `python3 -m pip` records its arguments. The generated Dockerfile installs
# only missing packages, so its apt steps have nothing to do and the build
# needs no network.
#
#   docker_build.sh PIPEC REPO_ROOT WORK_DIR
#
# The pipeline is docker_hello/hello.pipe: its @docker environment and
# requirements hold text that naive quoting would run or mangle; the run's
# `check` step and the recorded pip arguments show they arrived intact.
# A later run takes about 20 s.
set -u
pipec=$1
root=$2
# shellcheck source=tests/deploy/podman_base.sh
. "$(dirname "$0")/podman_base.sh"
podman_base_setup "$3"

# The bundle and its one image.
image_build "$pipec" "$root/tests/deploy/docker_hello/hello.pipe" "$work/bundle" localhost/pipec-hello-test:latest \
    "$work/build.log" || fail "podman build"
status=0

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
# The requirements reached pip as written (one argument each).
cat >"$work/pip-args.expected" <<'EOF'
install
--no-cache-dir
--
numpy==1.26.4
it's "q"
$(touch /tmp/pwned)
`touch /tmp/pwned`
back\slash\
--index-url=http://example.invalid/
ünï # */ ; & |
EOF
if buildah run --isolation chroot "$ctr" -- cat /opt/pip-args >"$work/pip-args" 2>"$work/pip-args.err" &&
    diff -u "$work/pip-args.expected" "$work/pip-args"; then
    echo "ok   pip arguments"
else
    echo "FAIL: the pip arguments differ (above)"
    status=1
fi
[ ! -e /tmp/pwned ] || echo "note: /tmp/pwned exists on this machine (not made by this test, which checks the image)"
[ $status = 0 ] && echo "docker build: ok"
exit $status
