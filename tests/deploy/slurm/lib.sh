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

# Installs Debian packages when a tool is missing (root only); returns 1
# when the tool is still missing.
need_tool() {
    local tool=$1 package=$2
    command -v "$tool" >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y "$package" >/dev/null 2>&1 ||
            { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y "$package" >/dev/null 2>&1; }
    fi
    command -v "$tool" >/dev/null 2>&1
}
