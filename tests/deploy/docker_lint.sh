#!/usr/bin/env bash
# hadolint on every generated Dockerfile: those of each example
# (examples/*/*.pipe), of the injection corpus (injection/injection.pipe), of
# the golden cases of @checkpoint and of images with a registry and Python
# dependencies (tests/golden/checkpoint/, tests/golden/images/) and of the
# image-build tests' pipelines (docker_hello/hello.pipe,
# docker_pypi/pypi.pipe). hadolint
# also runs ShellCheck on the RUN instructions.
#
#   docker_lint.sh PIPEC REPO_ROOT WORK_DIR
#
# hadolint (pinned) comes from the tests' Python environment (PIPEC_VENV,
# made by scripts/install-deps.sh); HADOLINT=/path/to/hadolint uses another
# one. A missing hadolint fails the test: there is no silent skip.
set -u
pipec=$1
root=$2
work=$3
hadolint_version=2.15.1
mkdir -p "$work"

hadolint=${HADOLINT:-${PIPEC_VENV:-}/bin/hadolint}
if ! "$hadolint" --version 2>/dev/null | grep -q "$hadolint_version"; then
    echo "FAIL: hadolint $hadolint_version is not at $hadolint: run scripts/install-deps.sh (or set HADOLINT)"
    exit 1
fi
echo "using $("$hadolint" --version)"

pipes=("$root"/examples/*/*.pipe "$root/tests/deploy/injection/injection.pipe"
       "$root/tests/golden/checkpoint/case.pipe" "$root/tests/golden/images/case.pipe"
       "$root/tests/deploy/docker_hello/hello.pipe" "$root/tests/deploy/docker_pypi/pypi.pipe")
status=0
checked=0
for pipe in "${pipes[@]}"; do
    # Each pipeline of the file (a library of steps has none).
    while read -r pipeline; do
        name=$(basename "$(dirname "$pipe")")-$pipeline
        out="$work/lint/$name"
        rm -rf "$out"
        # Pin what depends on the machine: the default CUDA image of GPU steps.
        if ! PIPEC_CUDA_VERSION=12.4.1 "$pipec" build "$pipe" --pipeline "$pipeline" -o "$out" --target docker \
            2>"$work/lint-$name.err"; then
            cat "$work/lint-$name.err"
            echo "FAIL: pipec build $pipe --pipeline $pipeline"
            status=1
            continue
        fi
        n=0
        for dockerfile in "$out"/docker/*/Dockerfile; do
            [ -f "$dockerfile" ] || continue
            n=$((n + 1))
            # The strictest threshold: style findings fail too.
            if "$hadolint" --failure-threshold style "$dockerfile"; then
                echo "ok   ${dockerfile#"$work/lint/"}"
            else
                echo "FAIL: hadolint ${dockerfile#"$work/lint/"}"
                status=1
            fi
        done
        if [ "$n" = 0 ]; then
            echo "FAIL: no Dockerfile for $pipe --pipeline $pipeline"
            status=1
        fi
        checked=$((checked + n))
    done < <(sed -n 's/^[[:space:]]*pipeline[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$pipe")
done

# The injection corpus has at least three distinct images (two @docker, the
# default CUDA one); other deploy tests add steps to it.
n=$(find "$work/lint/injection-injection/docker" -name Dockerfile | wc -l)
if [ "$n" -lt 3 ]; then
    echo "FAIL: the injection corpus gave $n Dockerfiles, expected 3 or more"
    status=1
fi
[ $status = 0 ] && echo "hadolint: $checked Dockerfiles clean"
exit $status
