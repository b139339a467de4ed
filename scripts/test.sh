#!/usr/bin/env bash
# Build pipec and run every test.
#
#   bash scripts/test.sh
#
# Phases: install missing dependencies; lint the shell scripts (scripts/,
# .ci/run, tests/, bench/); configure, build and ctest in build/. With CI=true
# or PIPEC_SANITIZE=1 also: the same suite in build-asan/
# (-DPIPEC_SANITIZE=ON: ASan+UBSan; clang when present, with -DPIPEC_FUZZ=ON)
# and, when that build registered it (clang), the fuzz smoke test, ctest's
# fuzz.smoke: the front end for FUZZ_SECONDS, default 60, then the runtime's
# parsers -- bundle.yaml, step.yaml, run --config -- for
# FUZZ_RUNTIME_SECONDS, default 10, each.
# Exits non-zero, naming the phase, as soon as anything fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

phase="start"
header() {
    phase=$1
    printf '\n==> %s\n' "$1"
}
on_exit() {
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        printf '\ntest.sh: FAILED (exit %s) in phase: %s\n' "$rc" "$phase" >&2
    fi
}
trap on_exit EXIT

jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

# configure DIR [CMAKE_ARGS...]: Ninja when present. The generator and the
# first-time-only arguments in FRESH_ARGS are passed only to a new build tree,
# so that an existing one keeps the choices it was made with.
FRESH_ARGS=()
configure() {
    local dir=$1
    shift
    local -a args=("$@")
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        command -v ninja >/dev/null 2>&1 && args+=(-G Ninja)
        args+=(${FRESH_ARGS[@]+"${FRESH_ARGS[@]}"})
    fi
    cmake -S . -B "$dir" ${args[@]+"${args[@]}"}
}

# run_ctest DIR [CTEST_ARGS...]: adds the number of tests run to tests_run.
tests_run=0
run_ctest() {
    local dir=$1 n
    shift
    # --no-tests=error: a suite that registered no test is a broken suite.
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$jobs" "$@" |
        tee "$dir/ctest-output.log"
    n=$(sed -n 's/.*tests failed out of \([0-9][0-9]*\)$/\1/p' "$dir/ctest-output.log" | tail -n 1)
    tests_run=$((tests_run + ${n:-0}))
    check_skips "$dir"
}

# check_skips DIR: a skipped or not-run test fails the suite
# (scripts/ctest-skips.sh says why; docs/testing.md).
check_skips() { bash scripts/ctest-skips.sh "$1"; }

header "install dependencies (scripts/install-deps.sh)"
bash scripts/install-deps.sh

# shell_scripts: the repository's shell scripts under scripts/, .ci/, tests/
# and bench/, NUL-terminated: *.sh and the files whose first line is a sh or
# bash shebang (fakes such as tests/deploy/slurm/fake/sbatch have no
# extension). Files git tracks or would track (a new script counts before
# `git add`); every file outside a git checkout. pipec's output kept under
# tests/golden/*/expected/ is left out: deploy.slurm_scripts lints what pipec
# generates, built fresh.
shell_scripts() {
    local f first shebang='^#!.*[/[:space:]](ba)?sh([[:space:]]|$)'
    while IFS= read -r -d '' f; do
        [ -f "$f" ] || continue # deleted, not yet staged
        case $f in tests/golden/*/expected/*) continue ;; esac
        if [[ $f != *.sh ]]; then
            first=""
            IFS= read -r first <"$f" || true
            [[ $first =~ $shebang ]] || continue
        fi
        printf '%s\0' "$f"
    done < <(
        if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
            git ls-files -z --cached --others --exclude-standard -- scripts .ci tests bench
        else
            find scripts .ci tests bench -type f -print0
        fi
    )
}

header "lint shell scripts (shellcheck)"
mapfile -d '' scripts < <(shell_scripts)
# -x: follow `. lib.sh` (its `# shellcheck source=` path is from the root).
shellcheck -x "${scripts[@]}"
echo "shellcheck: ok (${#scripts[@]} scripts)"

header "configure build/"
FRESH_ARGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
configure build

header "build build/"
cmake --build build -j "$jobs"

header "test build/ (ctest)"
run_ctest build

if [ "${CI:-}" != "true" ] && [ "${PIPEC_SANITIZE:-0}" != "1" ]; then
    printf '\n(PIPEC_SANITIZE=1 adds the ASan+UBSan build and fuzzing)\n'
    printf 'test.sh: %d passed, 0 failed\n' "$tests_run"
    exit 0
fi

header "configure build-asan/ (ASan+UBSan)"
FRESH_ARGS=(-DCMAKE_BUILD_TYPE=Debug)
if command -v clang >/dev/null 2>&1; then
    FRESH_ARGS+=(-DCMAKE_C_COMPILER=clang -DPIPEC_FUZZ=ON)
fi
configure build-asan -DPIPEC_SANITIZE=ON

header "build build-asan/"
cmake --build build-asan -j "$jobs"

# Any sanitizer report fails the test that triggered it.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

header "test build-asan/ (ctest under ASan+UBSan)"
run_ctest build-asan -E '^fuzz\.smoke$' # run on its own below

# fuzz.smoke is registered with the fuzz targets (-DPIPEC_FUZZ=ON, clang).
smoke_listed=$(ctest --test-dir build-asan -N -R '^fuzz\.smoke$' 2>/dev/null || true)
export FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
if grep -q 'Total Tests: 1' <<<"$smoke_listed"; then
    header "fuzz smoke test (ctest fuzz.smoke, ${FUZZ_SECONDS}s)"
    run_ctest build-asan -R '^fuzz\.smoke$'
else
    printf '\n(no fuzz.smoke: build-asan/ was not configured with clang and -DPIPEC_FUZZ=ON)\n'
fi

printf '\ntest.sh: %d passed, 0 failed\n' "$tests_run"
