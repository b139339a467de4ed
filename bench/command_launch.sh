#!/usr/bin/env bash
# Launch overhead of a PyTorch script on 4 CPU ranks: the same script
# (gloo_barrier.py: join a gloo process group with env://, one barrier,
# leave) started, in the same run,
#   pipe      as a command step of a bundle: `EXE step gloo --run-id R --store
#             S --no-cache` with @run_with_accelerate(num_processes = 4,
#             cpu = true) (the supervisor execs 4 Pythons with the launch
#             environment, commits, writes step.yaml and the log);
#   torchrun  `torchrun --standalone --nproc-per-node 4` (what `accelerate
#             launch` runs for multi-process jobs: torch.distributed.run).
# Each run's overhead is its wall time minus the script's own time in
# process (the slowest rank, from its first line to its last: Python's start
# and the script's imports count as the script's). Prints the median of
# RUNS of each and the ratio of the overheads (the goal: pipe's at least 10x
# below torchrun's).
#
#   bash bench/command_launch.sh [RUNS] [PIPEC]
# Python with torch: build/venv (scripts/install-deps.sh makes it; BENCH_VENV
# names another).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
pipec=${2:-$root/build/compiler/pipec}
venv=${BENCH_VENV:-$root/build/venv}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! [ -x "$venv/bin/torchrun" ] || ! "$venv/bin/python" -c 'import torch.distributed' 2>/dev/null; then
    echo "making $venv with scripts/install-deps.sh (once; several GB)..." >&2
    PIPEC_VENV="$venv" bash "$root/scripts/install-deps.sh" >"$work/deps.log" 2>&1 ||
        { tail -5 "$work/deps.log" >&2; echo "install-deps.sh failed: no torch here" >&2; exit 1; }
fi
export PATH="$venv/bin:$PATH" OMP_NUM_THREADS=1 # torchrun sets OMP_NUM_THREADS=1 too

mkdir -p "$work/pipeline"
cp "$root/bench/gloo_barrier.py" "$work/pipeline/"
cat >"$work/pipeline/gloo.pipe" <<'PIPE'
pipeline gloo() {
    gloo_barrier()
}

@run_with_accelerate(num_processes = 4, cpu = true)
step gloo_barrier() {
    source  = ["gloo_barrier.py"]
    command = ["python3", "gloo_barrier.py"]
}
PIPE
"$pipec" build "$work/pipeline/gloo.pipe" -o "$work/bundle" --target local
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/bundle/build" >/dev/null
exe=$work/bundle/build/gloo

# one NAME CMD...: a launch, timed; prints "total own" (seconds).
one() {
    local name=$1
    shift
    rm -rf "$work/times" && mkdir -p "$work/times"
    local start end
    start=$(date +%s.%N)
    BENCH_TIMES=$work/times "$@" >"$work/$name.out" 2>&1 || { cat "$work/$name.out" >&2; echo "$name failed" >&2; exit 1; }
    end=$(date +%s.%N)
    [ "$(find "$work/times" -name "rank-*" | wc -l)" = 4 ] || { cat "$work/$name.out" >&2; echo "$name: not 4 ranks" >&2; exit 1; }
    python3 - "$work/times" "$start" "$end" <<'PY'
import os, sys
d, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
spans = [tuple(map(float, open(os.path.join(d, f)).read().split())) for f in os.listdir(d)]
own = max(e for _, e in spans) - min(s for s, _ in spans)
print(f"{end - start:.6f} {own:.6f}")
PY
}

pipe_cmd=("$exe" step gloo_barrier --run-id bench --store "$work/store" --no-cache)
torch_cmd=(torchrun --standalone --nproc-per-node 4 "$work/pipeline/gloo_barrier.py")
# Untimed first runs warm the page cache with torch's libraries.
one warm-pipe "${pipe_cmd[@]}" >/dev/null
one warm-torch "${torch_cmd[@]}" >/dev/null
: >"$work/pipe.times"
: >"$work/torch.times"
for _ in $(seq "$runs"); do # interleaved: both see the same machine
    one pipe "${pipe_cmd[@]}" >>"$work/pipe.times"
    one torchrun "${torch_cmd[@]}" >>"$work/torch.times"
done
grep -q "4 ranks of .python3." "$work/store/bench/gloo_barrier/log" ||
    { cat "$work/store/bench/gloo_barrier/log" >&2; echo "no 4-rank launch in pipe's log" >&2; exit 1; }

python3 - "$work/pipe.times" "$work/torch.times" "$runs" "$(getconf _NPROCESSORS_ONLN)" \
    "$("$venv/bin/python" -c 'import torch; print(torch.__version__)')" <<'PY'
import statistics, sys
def load(path):
    rows = [tuple(map(float, l.split())) for l in open(path)]
    return (statistics.median(t for t, _ in rows), statistics.median(o for _, o in rows),
            statistics.median(t - o for t, o in rows))
p_total, p_own, p_over = load(sys.argv[1])
t_total, t_own, t_over = load(sys.argv[2])
runs, cpus, torch_version = sys.argv[3:6]
print(f"4 CPU ranks of a PyTorch script: gloo process group (env://), one barrier ({cpus} CPUs, "
      f"median of {runs}, torch {torch_version})")
print(f"                                   total     script    launch overhead")
print(f"  pipe command step             {p_total * 1e3:8.0f} ms {p_own * 1e3:8.0f} ms {p_over * 1e3:8.1f} ms")
print(f"  torchrun --nproc-per-node 4   {t_total * 1e3:8.0f} ms {t_own * 1e3:8.0f} ms {t_over * 1e3:8.1f} ms")
ratio = t_over / p_over if p_over > 0 else float("inf")
print(f"  pipe's launch overhead is {ratio:.1f}x below torchrun's (goal >= 10x: {'met' if ratio >= 10 else 'NOT met'})")
print(f"  whole launch: pipe is {t_total / p_total:.2f}x faster")
PY
