#!/usr/bin/env bash
# The Kubernetes target (docs/deploy-kubernetes.md), for every example
# (examples/*/*.pipe), the injection corpus (injection/injection.pipe), the
# Kubernetes corpus (k8s_corpus/k8s_corpus.pipe: parameters, secrets,
# volumes, GPU models, namespaces) and the golden case of @checkpoint
# (tests/golden/checkpoint/case.pipe) and of Neuron devices
# (tests/golden/neuron/case.pipe); k8s_check.py does the checking, with
# k8s_emulate.py doing what Argo and Kubernetes do to the objects:
#
#   - kubernetes-validate --strict (Kubernetes' own schemas, unknown fields
#     rejected) on every object: the Services and Jobs at the top level,
#     those the Workflow creates after Argo's substitution (a "{{" from the
#     .pipe file that Argo would expand fails the test), the prerequisites,
#     and what submit.sh renders; yamllint on the files and manifests;
#   - the Workflow through hera's models of Argo's schema and back, unchanged
#     (an unknown field is dropped, and so detected); its DAG's edges equal
#     `pipec graph`'s; its service account the prerequisites' one;
#   - each resource template's conditions, evaluated as Argo's executor
#     does (a label selector over gjson paths), on every state a Job ends
#     in: none leaves the task waiting; every Job has a deadline;
#   - parameters: `argo submit -p` values and `submit.sh --param` values
#     (quotes, $(VAR), {{ }}, newlines) reach each step's argv as given,
#     through Kubernetes' own $(VAR) expansion;
#   - submit.sh: the registry in the images' names, refused without one,
#     and clean under shellcheck;
#   - pods: securityContext, the GPU model as a required node affinity,
#     node_selector as a nodeSelector, secrets, volumes, image pull secrets;
#   - round trips: every string of the .pipe file that reaches the file
#     parses back byte-identical, with the YAML 1.1 rules kubectl's go-yaml
#     and Argo use;
#   - names: DNS labels within their limits, distinct, the same on a second
#     build;
#   - @checkpoint: the pods' grace period is the grace plus 15 s, and the
#     Job's podFailurePolicy ignores disruptions; other Jobs have neither.
#
#   k8s_validate.sh PIPEC REPO_ROOT
set -u
pipec=$(realpath "$1")
root=$(realpath "$2")
# shellcheck source=tests/deploy/k8s_venv.sh
. "$root/tests/deploy/k8s_venv.sh"
deploy_venv || exit 1
if ! "$venv/python" -c 'import hera.workflows.models' 2>/dev/null; then
    echo "FAIL: hera (Argo's models) is missing from $venv/..: run scripts/install-deps.sh"
    exit 1
fi
command -v shellcheck >/dev/null || { echo "FAIL: shellcheck is missing: run scripts/install-deps.sh"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PIPEC_CUDA_VERSION=12.4.1

status=0
pipes=("$root"/examples/*/*.pipe "$root/tests/deploy/injection/injection.pipe"
    "$root/tests/deploy/k8s_corpus/k8s_corpus.pipe" "$root/tests/golden/checkpoint/case.pipe"
    "$root/tests/golden/neuron/case.pipe")
checked=0
for pipe in "${pipes[@]}"; do
    # Every pipeline of the file (files with steps only have none).
    mapfile -t pls < <(sed -nE 's/^[[:space:]]*pipeline[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$pipe" 2>/dev/null)
    for pl in "${pls[@]}"; do
        checked=$((checked + 1))
        out=$work/$(basename "$(dirname "$pipe")")-$(basename "$pipe" .pipe)-$pl
        mkdir -p "$out.work"
        build() { (cd "$(dirname "$pipe")" && "$pipec" build "$(basename "$pipe")" --pipeline "$pl" -o "$1" --target kubernetes); }
        if ! build "$out" 2>"$out.err"; then
            echo "FAIL: pipec build $pipe --pipeline $pl"
            cat "$out.err"
            status=1
            continue
        fi
        # Deterministic: a second build gives the same bytes.
        build "$out.again" 2>/dev/null
        if ! diff -r "$out/kubernetes" "$out.again/kubernetes" >/dev/null; then
            echo "FAIL: $pipe --pipeline $pl: a second build wrote a different kubernetes/"
            status=1
        fi
        "$venv/python" "$root/tests/deploy/k8s_check.py" "$pipe" "$out" "$out.work" "$venv" \
            "$deploy_yamllint_config" "$pipec" || status=1
    done
done
[ $status = 0 ] && echo "k8s_validate: ok ($checked pipelines)"
exit $status
