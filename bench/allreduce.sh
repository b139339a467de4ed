#!/usr/bin/env bash
# All-reduce bandwidth on one machine: 4 CPU ranks sum a float32 buffer of
# MIB MiB (default 64) ITERS times (default 20), in the same run:
#   pipe   a step with @run_with_accelerate(num_processes = 4, cpu = true):
#          pipe_allreduce(PIPE_F32, PIPE_SUM) through the CPU backend (shared
#          memory between local ranks), timed inside the step between two
#          pipe_barrier calls after WARMUP untimed calls; rank 0 reports it
#          with pipe_log and pipe_metric;
#   mpi    Debian's Open MPI: `mpirun -np 4` of MPI_Allreduce (in place) on
#          a float32 buffer of the same size, timed the same way
#          (bench/mpi_allreduce.c; installed with apt-get when missing and
#          root);
#   torch  torchrun --nproc-per-node 4 of dist.all_reduce on a float32 tensor
#          of the same size with gloo, timed the same way (torch from PyPI in
#          the virtual environment of bench/launch.sh, build/venv);
#   memcpy 4 processes, as many as the ranks, each copying a buffer of MIB
#          MiB ITERS times (bench/memcpy_bw.c), best of 3: the machine's copy
#          bandwidth B (as many processes as pipe has, so that a machine
#          shared with other work gives both the same share of its CPUs).
# Prints the algorithm bandwidth (bytes of the buffer / time per all-reduce,
# in GB/s = 1e9 bytes/s) of each, pipe's ratio to Open MPI and to torch, and
# pipe against two memory-traffic bounds (docs/performance.md, "All-reduce"):
# the shared-memory scheme's traffic when every byte goes to memory,
# 2B / (5P + 1), and the floor of any in-place all-reduce, each rank reading
# and writing its buffer once, B / P. All check the first sum.
#
#   bash bench/allreduce.sh [MIB] [ITERS] [PIPEC]
# WARMUP (default 3) untimed all-reduces first. BENCH_VENV overrides the
# virtual environment's directory; TORCH=0 leaves torch out.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mib=${1:-64}
iters=${2:-20}
pipec=${3:-$root/build/compiler/pipec}
warmup=${WARMUP:-3}
venv=${BENCH_VENV:-$root/build/venv}
[ -x "$pipec" ] || { echo "build pipec first (cmake --build build)" >&2; exit 2; }
[ "$warmup" -ge 1 ] || { echo "WARMUP must be at least 1 (the first all-reduce is checked)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1

# ---- pipe ----
mkdir -p "$work/src"
cat >"$work/src/allreduce.c" <<'C'
#include "allreduce.h"

#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int allreduce(pipe_ctx *ctx, const allreduce_allreduce_args *a)
{
    const int rank = pipe_rank(ctx), world = pipe_world_size(ctx);
    const size_t n = (size_t)a->mib * (1u << 20) / sizeof(float);
    const float want = (float)world * (float)(world + 1) / 2.0f;
    float *buf;
    double t0, t;
    int rc;

    if (a->mib < 1 || a->iters < 1 || a->warmup < 1)
        return pipe_fail(ctx, "need mib, iters and warmup >= 1");
    if (!(buf = malloc(n * sizeof *buf)))
        return pipe_fail(ctx, "out of memory for %lld MiB", (long long)a->mib);
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)(rank + 1);
    for (int64_t w = 0; w < a->warmup; w++) {
        if ((rc = pipe_allreduce(ctx, buf, n, PIPE_F32, PIPE_SUM)) != 0)
            goto fail;
        if (w == 0)
            for (size_t i = 0; i < n; i += 4093)
                if (buf[i] != want) {
                    free(buf);
                    return pipe_fail(ctx, "rank %d: element %zu is %g after the sum, expected %g", rank, i,
                                     (double)buf[i], (double)want);
                }
    }
    if ((rc = pipe_barrier(ctx)) != 0)
        goto fail;
    t0 = now();
    for (int64_t it = 0; it < a->iters; it++)
        if ((rc = pipe_allreduce(ctx, buf, n, PIPE_F32, PIPE_SUM)) != 0)
            goto fail;
    if ((rc = pipe_barrier(ctx)) != 0)
        goto fail;
    t = now() - t0;
    free(buf);
    if (rank == 0) {
        double gbps = (double)n * sizeof(float) * (double)a->iters / t / 1e9;
        pipe_log(ctx, "%d ranks, %lld MiB float32, %lld all-reduces in %.3f s: %.3f GB/s", world,
                 (long long)a->mib, (long long)a->iters, t, gbps);
        pipe_metric(ctx, "gbps", gbps);
        pipe_metric(ctx, "seconds", t);
    }
    return 0;
fail:
    free(buf);
    return pipe_fail(ctx, "rank %d: %s (%d)", rank, pipe_last_error(ctx), rc);
}
C
cat >"$work/allreduce.pipe" <<'PIPE'
pipeline allreduce(mib: int = 64, iters: int = 20, warmup: int = 3) {
    allreduce(mib = mib, iters = iters, warmup = warmup)
}

@resources(cpu = 4, memory = "1GB")
@run_with_accelerate(num_processes = 4, cpu = true, main_process_port = 0)
step allreduce(mib: int = 64, iters: int = 20, warmup: int = 3) {
    source = "src/allreduce.c"
}
PIPE
"$pipec" build "$work/allreduce.pipe" -o "$work/bundle" --target local
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$work/bundle" -B "$work/bundle/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/bundle/build" >/dev/null
store=$work/store
if ! "$work/bundle/build/allreduce" step allreduce --run-id bench --store "$store" --no-cache \
    --param mib="$mib" --param iters="$iters" --param warmup="$warmup" >"$work/pipe.out" 2>&1; then
    cat "$work/pipe.out" "$store/bench/allreduce/log" >&2 2>/dev/null || true
    echo "the pipe step failed" >&2
    exit 1
fi
pipe_gbps=$(awk -F, '$1 == "gbps" { v = $3 } END { print v }' "$store/bench/allreduce/metrics.csv")
pipe_line=$(sed -n 's/.*\[rank 0\] //p' "$store/bench/allreduce/log" | tail -n 1)

# ---- torch gloo ----
torch_gbps=
if [ "${TORCH:-1}" = 0 ]; then
    echo "TORCH=0: no torch figure" >&2
elif ! [ -x "$venv/bin/torchrun" ] || ! "$venv/bin/python" -c 'import torch.distributed' 2>/dev/null; then
    echo "making $venv with scripts/install-deps.sh (once; several GB)..." >&2
    PIPEC_VENV="$venv" bash "$root/scripts/install-deps.sh" >"$work/deps.log" 2>&1 ||
        { tail -5 "$work/deps.log" >&2; echo "install-deps.sh failed: no torch figure" >&2; }
fi
if [ "${TORCH:-1}" != 0 ] && [ -x "$venv/bin/torchrun" ]; then
    if "$venv/bin/torchrun" --standalone --nproc-per-node 4 "$root/bench/torch_allreduce.py" \
        "$mib" "$iters" "$warmup" >"$work/torch.out" 2>&1; then
        torch_gbps=$(sed -n 's/^gbps //p' "$work/torch.out" | tail -n 1)
        torch_line=$(grep '^torch gloo' "$work/torch.out" | tail -n 1)
    else
        tail -20 "$work/torch.out" >&2
        echo "the torch run failed: no torch figure" >&2
    fi
fi

# ---- Open MPI ----
mpi_gbps=
# shellcheck source=bench/openmpi.sh
source "$root/bench/openmpi.sh" # sets mpicc and mpirun
if [ -n "$mpicc" ] && [ -n "$mpirun" ]; then
    "$mpicc" -O2 -o "$work/mpi_allreduce" "$root/bench/mpi_allreduce.c"
    if "$mpirun" --allow-run-as-root --oversubscribe -np 4 "$work/mpi_allreduce" "$mib" "$iters" "$warmup" \
        >"$work/mpi.out" 2>&1; then
        mpi_gbps=$(sed -n 's/^gbps //p' "$work/mpi.out" | tail -n 1)
        mpi_line="$(grep '^Open MPI' "$work/mpi.out" | tail -n 1) ($("$mpirun" --version 2>&1 | head -n 1))"
    else
        tail -20 "$work/mpi.out" >&2
        echo "the Open MPI run failed: no Open MPI figure" >&2
    fi
else
    echo "no mpicc/mpirun: no Open MPI figure" >&2
fi

# ---- memcpy ----
cc -O2 -o "$work/memcpy_bw" "$root/bench/memcpy_bw.c"
# Best of 3: the machine's bandwidth, not what a neighbour left of it.
for _ in 1 2 3; do
    "$work/memcpy_bw" "$mib" "$iters" 4 >>"$work/memcpy.out"
done
memcpy_gbps=$(sed -n 's/^gbps //p' "$work/memcpy.out" | sort -g | tail -n 1)
memcpy_line="best of 3: $(grep '^memcpy' "$work/memcpy.out" | sort -t' ' -k10 -g | head -n 1)"

python3 - "$mib" "$iters" "$pipe_gbps" "${mpi_gbps:-}" "${torch_gbps:-}" "$memcpy_gbps" "$pipe_line" \
    "${mpi_line:-}" "${torch_line:-}" "$memcpy_line" "$(getconf _NPROCESSORS_ONLN)" <<'PY'
import sys
mib, iters, pipe, mpi, torch, mem, pipe_line, mpi_line, torch_line, mem_line, cpus = sys.argv[1:]
pipe, mem, ranks = float(pipe), float(mem), 4
print(f"all-reduce (sum) of {mib} MiB float32 over {ranks} CPU ranks, {iters} timed iterations ({cpus} CPUs)")
print(f"  pipe_allreduce (cpu backend) : {pipe:8.3f} GB/s   [{pipe_line}]")
for name, v, line in (("Open MPI MPI_Allreduce", mpi, mpi_line), ("torch gloo dist.all_reduce", torch, torch_line)):
    if v:
        print(f"  {name:<28} : {float(v):8.3f} GB/s   pipe is {pipe / float(v):5.2f}x   [{line}]")
    else:
        print(f"  {name:<28} :   (not available)")
scheme, floor = 2 * mem / (5 * ranks + 1), mem / ranks
print(f"  memcpy bandwidth B           : {mem:8.3f} GB/s   [{mem_line}]")
print(f"  bound, scheme all in memory  : {scheme:8.3f} GB/s   2B/(5P+1)   pipe is {100 * pipe / scheme:4.0f}%")
print(f"  bound, read+write once, B/P  : {floor:8.3f} GB/s               pipe is {100 * pipe / floor:4.0f}%")
PY
