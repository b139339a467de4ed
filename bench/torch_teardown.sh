#!/usr/bin/env bash
# How often Accelerate's own test script ends with a rank killed at
# teardown (torch's "terminate called without an active exception",
# SIGABRT), started two ways in the same minutes, interleaved:
#   pipe      a command step of a bundle, @run_with_accelerate(num_processes
#             = 2, cpu = true, mixed_precision = "bf16"), `EXE step` run to
#             its end;
#   torchrun  `torchrun --standalone --nproc-per-node 2` with the variables
#             pipe gives the ranks for those settings (ACCELERATE_USE_CPU,
#             ACCELERATE_MIXED_PRECISION).
# torch itself is flaky there; the goal is that pipe is not worse. Prints
# each failure count over RUNS runs and their rates.
#
#   bash bench/torch_teardown.sh [RUNS] [PIPEC]      (default 50 each)
# Python with torch and accelerate: build/venv (BENCH_VENV names another).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-50}
pipec=${2:-$root/build/compiler/pipec}
venv=${BENCH_VENV:-$root/build/venv}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)" >&2; exit 2; }
"$venv/bin/python" -c 'import accelerate.test_utils.scripts.test_script' 2>/dev/null ||
    { echo "no accelerate in $venv (scripts/install-deps.sh makes it)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$venv/bin:$PATH"

mkdir -p "$work/pipeline"
cat >"$work/pipeline/teardown.pipe" <<'PIPE'
pipeline teardown() {
    accelerate_test()
}

@run_with_accelerate(num_processes = 2, cpu = true, mixed_precision = "bf16")
step accelerate_test() {
    command = ["python3", "-m", "accelerate.test_utils.scripts.test_script"]
    cache = false
}
PIPE
"$pipec" build "$work/pipeline/teardown.pipe" -o "$work/bundle" --target local >/dev/null
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/bundle/build" >/dev/null
exe=$work/bundle/build/teardown

pipe_failed=0 torchrun_failed=0
for i in $(seq 1 "$runs"); do
    if ! "$exe" step accelerate_test --run-id "r$i" --store "$work/store" >"$work/pipe.log" 2>&1; then
        pipe_failed=$((pipe_failed + 1))
        grep -m1 -E 'SIGABRT|terminate called|Error' "$work/pipe.log" | sed 's/^/  pipe:     /' || true
    fi
    if ! (cd "$work" && ACCELERATE_USE_CPU=true ACCELERATE_MIXED_PRECISION=bf16 \
        torchrun --standalone --nproc-per-node 2 -m accelerate.test_utils.scripts.test_script) \
        >"$work/torchrun.log" 2>&1; then
        torchrun_failed=$((torchrun_failed + 1))
        grep -m1 -E 'SIGABRT|terminate called|Error' "$work/torchrun.log" | sed 's/^/  torchrun: /' || true
    fi
done
rate() { awk -v f="$1" -v n="$runs" 'BEGIN { printf "%d/%d (%.0f%%)", f, n, 100 * f / n }'; }
echo "pipe:     $(rate "$pipe_failed") runs failed"
echo "torchrun: $(rate "$torchrun_failed") runs failed"
