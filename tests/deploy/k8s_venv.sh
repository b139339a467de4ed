# shellcheck shell=bash
# Sourced by tests/deploy/k8s_*.sh and skypilot_*.sh (not a test itself):
# the validators they run, in a Python virtual environment under the build
# tree made on first use from PyPI: kubernetes-validate (Kubernetes' OpenAPI
# schemas, offline once installed), PyYAML and yamllint.
#
#   . tests/deploy/k8s_venv.sh; deploy_venv BUILD_DIR   # sets $venv (its bin/)
#
# Tests running at once share it: a lock guards its creation. When it cannot
# be made (no python3 venv module, no PyPI), deploy_venv says why and returns 1.

deploy_venv_packages=("kubernetes-validate>=1.28" "PyYAML>=5.4" "yamllint>=1.26")
deploy_venv_recipe=1 # bump when the package list changes

deploy_venv() {
    local build=$1
    local dir=$build/deploy-venv
    local stamp=$dir/.pipec-recipe-$deploy_venv_recipe
    mkdir -p "$build" || return 1
    (
        flock 9
        [ -f "$stamp" ] && exit 0
        rm -rf "$dir"
        if ! python3 -m venv "$dir" >"$build/deploy-venv.log" 2>&1; then
            # Debian splits ensurepip into python3-venv.
            if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
                apt-get install -y python3-venv >>"$build/deploy-venv.log" 2>&1
                rm -rf "$dir"
                python3 -m venv "$dir" >>"$build/deploy-venv.log" 2>&1 || exit 2
            else
                exit 2
            fi
        fi
        "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "${deploy_venv_packages[@]}" \
            >>"$build/deploy-venv.log" 2>&1 || exit 3
        touch "$stamp"
    ) 9>"$build/deploy-venv.lock"
    case $? in
    0)
        # shellcheck disable=SC2034 # used by the scripts that source this file
        venv=$dir/bin
        return 0
        ;;
    2) echo "FAIL: cannot make a Python virtual environment (python3 -m venv) in $dir; see $build/deploy-venv.log" ;;
    3) echo "FAIL: pip could not install ${deploy_venv_packages[*]} from PyPI into $dir; see $build/deploy-venv.log" ;;
    *) echo "FAIL: cannot prepare the validators' environment in $dir" ;;
    esac
    [ -f "$build/deploy-venv.log" ] && tail -n 5 "$build/deploy-venv.log"
    return 1
}

# The yamllint rules for generated files: yamllint's defaults, except that
# long lines are allowed (generated values are not folded) and block
# sequences may sit at their key's indentation (as libyaml writes them),
# consistently within a file.
# shellcheck disable=SC2034 # used by the scripts that source this file
deploy_yamllint_config='{extends: default, rules: {line-length: disable, indentation: {spaces: 2, indent-sequences: consistent}}}'
