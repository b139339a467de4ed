#!/usr/bin/env bash
# The CPU cost of @gpu_profile sampling at a 100 ms interval, against the
# same step without @gpu_profile (the baseline), in the same run. The step
# sleeps, so what is measured is its supervisor: with the profiler, the
# samples of two GPUs (the tests' stand-in NVML library, so that the
# dlopen path and every NVML call run here) and of the step's processes.
# Goal: under 1% of one core.
#   bash bench/profile.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-10}
build=${2:-$root/build}
driver=$build/tests/report/report_driver
nvml=$build/tests/report/libnvml-standin-full.so
if [ ! -x "$driver" ] || [ ! -f "$nvml" ]; then
    echo "build the tests first (cmake --build $build)"
    exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$driver" "$nvml" "$work" "$seconds" "${RUNS:-3}" <<'PY'
import os, resource, subprocess, sys, time
driver, nvml, work, seconds, runs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])

def cpu_of(profile_ms, run):
    """CPU seconds of `step idle` (supervisor and its sleeping worker) and its wall time."""
    env = dict(os.environ, REPORT_SHAPE="idle", REPORT_PROFILE_MS=str(profile_ms), PIPE_NVML_LIBRARY=nvml)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run([driver, "step", "idle", "--run-id", "r%d_%d" % (profile_ms, run), "--store", work,
                    "--param", "work_ms=%d" % int(seconds * 1000)], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall

off, on = [], []
for run in range(runs):  # alternated, so that both see the same machine
    off.append(cpu_of(0, run))
    on.append(cpu_of(100, run))
samples = sum(1 for _ in open(os.path.join(work, "r100_0", "idle", "profile", "process.csv"))) - 1
gpu_rows = sum(1 for _ in open(os.path.join(work, "r100_0", "idle", "profile", "gpu.csv"))) - 1
c_off = min(c for c, _ in off)
c_on = min(c for c, _ in on)
wall = min(w for _, w in on)
cost = max(c_on - c_off, 0.0) / wall * 100
print(f"@gpu_profile at 100 ms: a step sleeping {seconds:g} s, best of {runs} runs each")
print(f"  {samples} process samples and {gpu_rows} GPU rows (2 stand-in GPUs) in one run")
print(f"  without @gpu_profile (baseline): {c_off * 1000:8.1f} ms CPU")
print(f"  with @gpu_profile              : {c_on * 1000:8.1f} ms CPU  = {c_on / c_off if c_off > 0 else float('inf'):.2f}x the baseline")
print(f"  sampler cost                   : {cost:8.3f} % of one core  ({(c_on - c_off) / max(samples, 1) * 1e6:.0f} us per sample; goal: under 1%)")
PY
