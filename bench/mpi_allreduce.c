/* The Open MPI half of bench/allreduce.sh: each of the ranks sums a float32
   buffer of MIB MiB with MPI_Allreduce (in place) ITERS times between two
   barriers, after WARMUP untimed calls of which the first is checked; rank 0
   prints the algorithm bandwidth (bytes of the buffer / time per
   all-reduce) as `gbps VALUE`.
   usage: mpirun -np 4 mpi_allreduce MIB ITERS WARMUP */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS || argc != 4)
        return 2;
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    long mib = atol(argv[1]), iters = atol(argv[2]), warmup = atol(argv[3]);
    size_t n = (size_t)mib * (1u << 20) / sizeof(float);
    float *buf = malloc(n * sizeof *buf);
    if (!buf || mib < 1 || iters < 1 || warmup < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)(rank + 1);
    const float want = (float)world * (float)(world + 1) / 2.0f;
    for (long w = 0; w < warmup; w++) {
        MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        for (size_t i = 0; w == 0 && i < n; i += 4093)
            if (buf[i] != want) {
                fprintf(stderr, "rank %d: element %zu is %g, expected %g\n", rank, i, (double)buf[i], (double)want);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++)
        MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (rank == 0) {
        printf("Open MPI MPI_Allreduce: %d ranks, %ld MiB float32, %ld all-reduces in %.3f s\n", world, mib, iters, t);
        printf("gbps %.4f\n", (double)n * sizeof(float) * (double)iters / t / 1e9);
    }
    free(buf);
    return MPI_Finalize() != MPI_SUCCESS;
}
