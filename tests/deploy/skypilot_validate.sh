#!/usr/bin/env bash
# The SkyPilot target (docs/deploy-skypilot.md), checked with SkyPilot
# itself, for every pipeline of every example (examples/*/*.pipe), every
# golden case (tests/golden/*), the injection corpus
# (injection/injection.pipe) and the target's own cases (skypilot/*.pipe:
# GPU model names, each form of @skypilot(store)). skypilot_check.py:
#
#   - loads every skypilot/<invocation>.yaml and the chain
#     skypilot/chain/<pipeline>.yaml with SkyPilot's loader (sky 0.14.1 from
#     the tests' Python environment; its schema refuses unknown fields and
#     wrong types), and compares the Task objects with bundle.yaml: the
#     image (resources.image_id, one that submit.sh builds), accelerators
#     (SkyPilot's model names), num_nodes, the store's file_mounts (the
#     bucket at /pipe-store with MOUNT_CACHED, a source SkyPilot accepts),
#     PIPE_STORE, envs, job recovery, the container run as root; the chain
#     holds the same tasks in the pipeline's order;
#   - reads back (YAML 1.1) cloud, region, accelerators and the @docker
#     environment exactly as the .pipe file wrote them; yamllint;
#   - runs `setup` and `run` with a stand-in for the image (its executable
#     and Python environment) and for apt-get, pip, cmake and sudo: setup
#     installs nothing, run starts the step with exactly the run id, store
#     and parameters given, finds python3 in the image's environment, gives
#     the runtime its machine rank, main address and token on several
#     nodes, and lets SkyPilot's epilogue (the wait for the store's
#     uploads) run and see the step's status;
#   - runs submit.sh with stand-ins for sky and podman: it refuses while
#     the images are named PIPE_REGISTRY/... and PIPE_REGISTRY is unset or
#     malformed, and otherwise builds and pushes each image under the
#     registry and launches the chain naming them; shellcheck throughout.
#
# SkyPilot runs offline here: HOME and its config file are the test's own
# (SKYPILOT_GLOBAL_CONFIG, an empty file), usage collection is off
# (SKYPILOT_DISABLE_USAGE_COLLECTION), and nothing used needs its catalogs.
#
#   skypilot_validate.sh PIPEC REPO_ROOT
set -u
pipec=$(realpath "$1")
root=$(realpath "$2")
# shellcheck source=tests/deploy/k8s_venv.sh
. "$root/tests/deploy/k8s_venv.sh"
deploy_venv || exit 1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIPEC_CUDA_VERSION=12.4.1
mkdir -p "$work/home"
: >"$work/sky-config.yaml"
export HOME=$work/home SKYPILOT_GLOBAL_CONFIG=$work/sky-config.yaml SKYPILOT_DISABLE_USAGE_COLLECTION=1
if ! "$venv/python" -c 'import sky' 2>"$work/import.err"; then
    echo "FAIL: SkyPilot is missing from $venv/..: run scripts/install-deps.sh"
    cat "$work/import.err"
    exit 1
fi

# Every .pipe file once: the examples, the golden cases (some are examples),
# the injection corpus and this target's own cases.
declare -A seen=()
pipes=()
for pipe in "$root"/examples/*/*.pipe "$root"/tests/golden/*/case.pipe "$root"/tests/golden/*/pipe_path \
    "$root/tests/deploy/injection/injection.pipe" "$root"/tests/deploy/skypilot/*.pipe; do
    [ -e "$pipe" ] || continue
    case $pipe in */pipe_path) pipe="$root/$(cat "$pipe")" ;; esac
    pipe=$(realpath "$pipe")
    [ -n "${seen[$pipe]:-}" ] && continue
    seen[$pipe]=1
    pipes+=("$pipe")
done

status=0
: >"$work/bundles"
n=0
for pipe in "${pipes[@]}"; do
    # Every pipeline of the file (files with steps only have none).
    mapfile -t pls < <(sed -nE 's/^[[:space:]]*pipeline[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$pipe")
    for pl in "${pls[@]}"; do
        n=$((n + 1))
        out=$work/b$n
        build() { (cd "$(dirname "$pipe")" && "$pipec" build "$(basename "$pipe")" --pipeline "$pl" -o "$1" --target skypilot,docker); }
        if ! build "$out" 2>"$out.err"; then
            echo "FAIL: pipec build $pipe --pipeline $pl"
            cat "$out.err"
            status=1
            continue
        fi
        # Deterministic: a second build gives the same bytes.
        build "$out.again" 2>/dev/null
        if ! diff -r "$out/skypilot" "$out.again/skypilot" >/dev/null; then
            echo "FAIL: $pipe --pipeline $pl: a second build wrote a different skypilot/"
            status=1
        fi
        printf '%s\t%s\n' "$pipe" "$out" >>"$work/bundles"
    done
done
mkdir -p "$work/check"
"$venv/python" "$root/tests/deploy/skypilot_check.py" "$work/check" "$deploy_yamllint_config" "$work/bundles" || status=1
[ $status = 0 ] && echo "skypilot_validate: ok ($n pipelines)"
exit $status
