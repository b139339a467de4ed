/* A step that needs a GPU: on a machine without one it must not start. */
#include <cstdio>

#include "cpu_wins.h"

__global__ static void touch(int *x) { *x = 1; }

extern "C" int needs_gpu(pipe_ctx *ctx, const cpu_wins_needs_gpu_args *args)
{
    (void)args;
    int *x = nullptr;
    cudaMalloc(&x, sizeof *x);
    touch<<<1, 1>>>(x);
    cudaFree(x);
    pipe_log(ctx, "the GPU step ran");
    return 0;
}
