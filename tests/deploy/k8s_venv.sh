# shellcheck shell=bash
# Sourced by tests/deploy/k8s_*.sh and skypilot_*.sh (not a test itself):
# the validators they run come from the tests' Python environment (build/venv,
# PIPEC_VENV), which scripts/install-deps.sh makes: kubernetes-validate
# (Kubernetes' OpenAPI schemas, offline), PyYAML and yamllint. A test
# installs nothing (docs/testing.md).
#
#   . tests/deploy/k8s_venv.sh; deploy_venv   # sets $venv (its bin/)

deploy_venv() {
    local dir=${PIPEC_VENV:-}
    local tool
    if [ -z "$dir" ]; then
        echo "FAIL: PIPEC_VENV is not set (ctest sets it to the tests' Python environment)"
        return 1
    fi
    for tool in python kubernetes-validate yamllint; do
        if [ ! -x "$dir/bin/$tool" ]; then
            echo "FAIL: $dir/bin/$tool is missing: run scripts/install-deps.sh"
            return 1
        fi
    done
    if ! "$dir/bin/python" -c 'import yaml' 2>/dev/null; then
        echo "FAIL: PyYAML is missing from $dir: run scripts/install-deps.sh"
        return 1
    fi
    # shellcheck disable=SC2034 # used by the scripts that source this file
    venv=$dir/bin
}

# The yamllint rules for generated files: yamllint's defaults, except that
# long lines are allowed (generated values are not folded) and block
# sequences may sit at their key's indentation (as libyaml writes them),
# consistently within a file.
# shellcheck disable=SC2034 # used by the scripts that source this file
deploy_yamllint_config='{extends: default, rules: {line-length: disable, indentation: {spaces: 2, indent-sequences: consistent}}}'
