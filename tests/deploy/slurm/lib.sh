# shellcheck shell=bash
# Shared by tests/deploy/slurm_*.sh (sourced, not run).

# The pipelines whose Slurm scripts the tests validate: every example,
# every golden case and the deploy tests' own (the injection corpus among
# them). One `PATH PIPELINE` a line, the path relative to the repository
# root; a file with several pipelines gives one line each.
slurm_test_pipelines() {
    local root=$1
    (
        cd "$root" || exit 1
        for f in examples/*/*.pipe tests/golden/*/case.pipe tests/deploy/*/*.pipe; do
            [ -f "$f" ] || continue
            # Libraries of steps have no pipeline to deploy.
            sed -n 's/^[[:space:]]*pipeline[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f" |
                while read -r name; do echo "$f $name"; done
        done
    )
}

# A folder name for a pipeline's outputs: its path with / as _, and its name.
slurm_case_name() {
    local p=${1%.pipe}
    echo "${p//\//_}-$2"
}

# Builds pipeline $2 of $1 (relative to repository root $3) with pipec $4
# into $5, Slurm target only; the error output goes to $5.err.
slurm_build() {
    local pipe=$1 name=$2 root=$3 pipec=$4 out=$5
    (cd "$root/$(dirname "$pipe")" && "$pipec" build "$(basename "$pipe")" --pipeline "$name" -o "$out" --target slurm) 2>"$out.err"
}

# True when a tool is installed; otherwise says which package
# scripts/install-deps.sh installs it from (tests install nothing).
need_tool() {
    local tool=$1 package=$2
    if command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ]; then
        return 0
    fi
    echo "FAIL: $tool is not installed (package $package): run scripts/install-deps.sh"
    return 1
}
