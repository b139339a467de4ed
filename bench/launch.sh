#!/usr/bin/env bash
# Launch cost of a distributed step: 4 CPU ranks start, meet at the
# rendezvous, pass one barrier and exit. Times, in the same run, best of N:
#   pipe     the bundle's launcher: `EXE step hello --run-id R --store S
#            --no-cache` for a step with @run_with_accelerate(num_processes =
#            4, cpu = true) whose body is pipe_barrier (the supervisor forks 4
#            workers, they join the rendezvous and the shared-memory
#            backend, barrier, exit; step.yaml and the log are written), with
#            the store on tmpfs (/dev/shm; TMPDIR when there is none);
#   spawns   the baseline: one spawn of /bin/true, then 4 more at once (a
#            launcher and its ranks), run by run interleaved with pipe's
#            (bench/spawn_timer.c); the goal is pipe <= 2x;
#   mpirun   Debian's Open MPI: `mpirun -np 4` of MPI_Init, MPI_Barrier,
#            MPI_Finalize (installed with apt-get when missing and root);
#   torchrun `torchrun --standalone --nproc-per-node 4` of a script that joins
#            a gloo process group and calls dist.barrier() (torch from PyPI in
#            a virtual environment cached in build/venv).
# and prints each time and the ratios (the goal: pipe >= 100x faster than
# torchrun).
#
#   bash bench/launch.sh [RUNS] [PIPEC]
# RUNS (default 15) for pipe, the spawns and mpirun; SLOW_RUNS (default 3)
# for torchrun.
# BENCH_VENV overrides the virtual environment's directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-15}
pipec=${2:-$root/build/compiler/pipec}
slow_runs=${SLOW_RUNS:-3}
venv=${BENCH_VENV:-$root/build/venv}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)" >&2; exit 2; }
work=$(mktemp -d)
# The store on tmpfs: the launch, not the disk, is measured.
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
store=$(mktemp -d "$shm/pipe-launch-store.XXXXXX")
trap 'rm -rf "$work" "$store"' EXIT
best() { python3 "$root/bench/best_of.py" "$@"; }
export OMP_NUM_THREADS=1 # torchrun sets it too; the same for every peer

# ---- pipe ----
mkdir -p "$work/src"
cat >"$work/src/hello.c" <<'C'
#include "launch.h"

int hello(pipe_ctx *ctx, const launch_hello_args *args)
{
    (void)args;
    if (pipe_world_size(ctx) != 4)
        return pipe_fail(ctx, "world size %d, expected 4", pipe_world_size(ctx));
    int rc = pipe_barrier(ctx);
    return rc == 0 ? 0 : pipe_fail(ctx, "pipe_barrier: %s (%d)", pipe_last_error(ctx), rc);
}
C
cat >"$work/launch.pipe" <<'PIPE'
pipeline launch() {
    hello()
}

@run_with_accelerate(num_processes = 4, cpu = true, main_process_port = 0)
step hello() {
    source = "src/hello.c"
}
PIPE
"$pipec" build "$work/launch.pipe" -o "$work/bundle" --target local
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/bundle/build" >/dev/null
exe=$work/bundle/build/launch
cc -std=c11 -O2 -o "$work/spawn_timer" "$root/bench/spawn_timer.c"
# Once by hand: it must succeed with 4 ranks before it is timed.
"$exe" step hello --run-id check --store "$store" --no-cache >"$work/check.out" 2>&1 ||
    { cat "$work/check.out" "$store/check/hello/log" >&2 2>/dev/null; echo "the pipe step failed" >&2; exit 1; }
times=$("$work/spawn_timer" "$runs" 4 -- "$exe" step hello --run-id bench --store "$store" --no-cache)
t_pipe=$(awk '$1 == "cmd" { print $2 }' <<<"$times")
t_spawn=$(awk '$1 == "baseline" { print $2 }' <<<"$times")
grep -q "4 ranks" "$store/bench/hello/log" || { cat "$store/bench/hello/log" >&2; echo "no 4-rank launch in the log" >&2; exit 1; }

# ---- mpirun (Open MPI) ----
t_mpi=
# shellcheck source=bench/openmpi.sh
. "$root/bench/openmpi.sh"
if [ -n "$mpicc" ] && [ -n "$mpirun" ]; then
    "$mpicc" -O2 -o "$work/mpi_barrier" "$root/bench/mpi_barrier.c"
    mpi_cmd=("$mpirun" --allow-run-as-root --oversubscribe -np 4 "$work/mpi_barrier")
    t_mpi=$(best -r "$runs" -- "${mpi_cmd[@]}") || t_mpi=
    mpi_name="Open MPI $("$mpirun" --version 2>&1 | head -n 1 | awk '{ print $NF }')"
else
    echo "no mpicc/mpirun: no Open MPI figure" >&2
fi

# ---- torchrun (gloo) ----
t_torch=
if ! [ -x "$venv/bin/torchrun" ] || ! "$venv/bin/python" -c 'import torch.distributed' 2>/dev/null; then
    echo "making $venv with scripts/install-deps.sh (once; several GB)..." >&2
    PIPEC_VENV="$venv" bash "$root/scripts/install-deps.sh" >"$work/deps.log" 2>&1 ||
        { tail -5 "$work/deps.log" >&2; echo "install-deps.sh failed: no torch figure" >&2; }
fi
if [ -x "$venv/bin/torchrun" ]; then
    torch_cmd=("$venv/bin/torchrun" --standalone --nproc-per-node 4 "$root/bench/torch_barrier.py")
    # A first, untimed run warms the page cache with torch's libraries.
    "${torch_cmd[@]}" >/dev/null 2>&1 || true
    t_torch=$(best -r "$slow_runs" -- "${torch_cmd[@]}") || t_torch=
    torch_name="torch $("$venv/bin/python" -c 'import torch; print(torch.__version__)')"
fi

python3 - "$runs" "$slow_runs" "$t_pipe" "$t_spawn" "${t_mpi:-}" "${t_torch:-}" "${mpi_name:-}" "${torch_name:-}" "$(getconf _NPROCESSORS_ONLN)" "$store" <<'PY'
import sys
runs, slow_runs, t_pipe, t_spawn, t_mpi, t_torch, mpi_name, torch_name, cpus, store = sys.argv[1:]
t_pipe, t_spawn = float(t_pipe), float(t_spawn)
print(f"4 CPU ranks: start, rendezvous, one barrier, exit ({cpus} CPUs; best of {runs}, torchrun best of {slow_runs})")
print(f"  pipe step (launcher, cpu backend)     : {t_pipe * 1e3:9.2f} ms   (store in {store.rsplit('/', 1)[0]})")
print(f"  spawn /bin/true, then 4 at once       : {t_spawn * 1e3:9.2f} ms   pipe is {t_pipe / t_spawn:6.2f}x this baseline")
print(f"  goal pipe <= 2x the spawns            : {'met' if t_pipe / t_spawn <= 2 else 'NOT met'}")
if t_mpi:
    t = float(t_mpi)
    print(f"  mpirun -np 4 (barrier)                : {t * 1e3:9.1f} ms   pipe is {t / t_pipe:6.1f}x faster  ({mpi_name})")
else:
    print("  mpirun -np 4                          :   (not available)")
if t_torch:
    t = float(t_torch)
    print(f"  torchrun --nproc-per-node 4 (gloo)    : {t * 1e3:9.1f} ms   pipe is {t / t_pipe:6.1f}x faster  ({torch_name})")
    print(f"  goal pipe >= 100x faster than torchrun: {'met' if t / t_pipe >= 100 else 'NOT met'}")
else:
    print("  torchrun --nproc-per-node 4 (gloo)    :   (not available)")
PY
