#!/usr/bin/env bash
# A real image build whose requirements come from the package index, and a
# run of the command step in the image: docker_pypi/pypi.pipe's step needs
# six==1.16.0, which the generated Dockerfile's pip installs into the image's
# virtual environment; the step imports it and writes its version and path,
# and the environment the .pipe file gives it (the pipeline's and the step's
# @docker(environment) merged key by key, the body's over the image's).
# Then `import pipe` in the image: the module from the bundle, on PYTHONPATH.
#
#   docker_pypi.sh PIPEC REPO_ROOT WORK_DIR
#
# It builds on podman_base.sh's store and Debian base (made once, shared with
# docker_build.sh), with its pip stand-in removed: the real python3 -m venv
# and pip run. The image reaches the index as pip on this machine does: pip's
# index-url, extra-index-url and cert settings here (PIP_* variables, else
# `pip config`) are written into the test's base image as /etc/pip.conf,
# with the certificate file they name; none set, pip's default index. A
# machine whose pip cannot reach its index fails the test with pip's error
# (scripts/test.sh counts a skip as a failure too). A later run takes about
# 30 s, most of it the build of the bundle's executable.
set -u
pipec=$1
root=$2
# shellcheck source=tests/deploy/podman_base.sh
. "$(dirname "$0")/podman_base.sh"
podman_base_setup "$3"
python_base=localhost/pipec-test-python:bookworm
dir="$3/docker-pypi"
rm -rf "$dir"
mkdir -p "$dir/base"

# pip_setting KEY: pip's KEY on this machine, as pip reads it (its
# environment first, then its configuration files).
pip_python=python3
[ -n "${PIPEC_VENV:-}" ] && [ -x "$PIPEC_VENV/bin/python" ] && pip_python=$PIPEC_VENV/bin/python
"$pip_python" -m pip config list >"$dir/pip-config" 2>/dev/null || : >"$dir/pip-config"
pip_setting() {
    local scope v
    for scope in :env: global install; do
        v=$(sed -n "s|^$scope\\.$1='\\(.*\\)'\$|\\1|p" "$dir/pip-config" | head -n 1)
        [ -n "$v" ] && { printf '%s\n' "$v"; return; }
    done
}
index=$(pip_setting index-url)
extra=$(pip_setting extra-index-url)
cert=$(pip_setting cert)
{
    echo "[global]"
    [ -z "$index" ] || echo "index-url = $index"
    [ -z "$extra" ] || echo "extra-index-url = $extra"
    [ -z "$cert" ] || echo "cert = /etc/ssl/certs/pipec-test-pip.crt"
} >"$dir/base/pip.conf"
containerfile="FROM $base
COPY pip.conf /etc/pip.conf
RUN rm -f /usr/local/bin/python3 && python3 -m venv --help >/dev/null"
if [ -n "$cert" ]; then
    [ -r "$cert" ] || fail "pip's cert setting names $cert, which cannot be read"
    cp "$cert" "$dir/base/pipec-test-pip.crt"
    containerfile="$containerfile
COPY pipec-test-pip.crt /etc/ssl/certs/pipec-test-pip.crt"
fi
printf '%s\n' "$containerfile" >"$dir/base/Containerfile"
shown_index=${index:-the default index}
echo "pip's index: $shown_index${extra:+, also $extra}${cert:+ (certificates from $cert)}"

# The base with the real python3 and this machine's pip settings, made
# again when they or the base change.
recipe=$({ podman image inspect --format '{{.Id}}' "$base"; cat "$dir/base"/*; } | sha256sum | cut -c1-16)
if [ "$(podman image inspect --format '{{index .Labels "io.pipec.test-recipe"}}' "$python_base" 2>/dev/null)" != "$recipe" ]; then
    if ! podman build --isolation chroot --pull=never --label "io.pipec.test-recipe=$recipe" \
        -f "$dir/base/Containerfile" -t "$python_base" "$dir/base" >"$dir/base.log" 2>&1; then
        tail -20 "$dir/base.log"
        grep -qiE "user namespace|newuidmap|operation not permitted" "$dir/base.log" &&
            skip "podman build cannot create its chroot here (see above)"
        fail "podman build of $python_base"
    fi
fi

if ! image_build "$pipec" "$root/tests/deploy/docker_pypi/pypi.pipe" "$dir/bundle" localhost/pipec-pypi-test:latest \
    "$dir/build.log"; then
    why=$(grep -m1 -iE "Could not find a version|No matching distribution|NewConnectionError|Max retries|SSLError|Temporary failure in name resolution|Network is unreachable|timed out" "$dir/build.log")
    [ -n "$why" ] && fail "pip in the image build could not install six==1.16.0 from $shown_index: $why"
    fail "podman build"
fi
grep -q "Successfully installed six-1.16.0" "$dir/build.log" ||
    fail "the build log does not show pip installing six-1.16.0 (see $dir/build.log)"
echo "ok   pip installed six-1.16.0 from the index in the image build"

status=0
ctr=$(buildah from --pull=never "$image") || fail "buildah from $image"
if ! buildah run --isolation chroot "$ctr" -- /opt/pipe/bin/pypi run --store /tmp/store >"$dir/run.log" 2>&1; then
    cat "$dir/run.log"
    fail "the bundle's run in the image"
fi
echo "ok   pypi run (in the image, as uid 10001)"
buildah run --isolation chroot "$ctr" -- sh -c 'cat /tmp/store/*/versions/outputs/report' >"$dir/report" 2>&1
cat >"$dir/report.expected" <<'EXPECTED'
six 1.16.0 /opt/pipe/venv/lib/python3.11/site-packages/six.py
OMP_PROC_BIND=close
A=2
B=body
EXPECTED
if diff -u "$dir/report.expected" "$dir/report"; then
    echo "ok   the step imports six 1.16.0 from the image's virtual environment"
    echo "ok   its environment: the pipeline's OMP_PROC_BIND, the step's A, the body's B"
else
    echo "FAIL: what the step saw in the image differs (above)"
    status=1
fi
# The `pipe` Python module is in the image, on PYTHONPATH for any program.
got=$(buildah run --isolation chroot "$ctr" -- python3 -c 'import pipe; print(pipe.__file__)' 2>&1)
if [ "$got" = /opt/pipe/share/pipe/pypi/python/pipe/__init__.py ]; then
    echo "ok   import pipe in the image: $got"
else
    echo "FAIL: import pipe in the image gave: $got"
    status=1
fi
[ $status = 0 ] && echo "docker pypi: ok"
exit $status
