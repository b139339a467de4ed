/* A native step with a GPU count and cpu = true: its ranks run on the CPU
   and see no GPU, in a bundle built with CUDA too. */
#include <stdio.h>
#include <stdlib.h>

#include "cpu_wins.h"

int cpu_native(pipe_ctx *ctx, const cpu_wins_cpu_native_args *args)
{
    (void)args;
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES"), *use_cpu = getenv("ACCELERATE_USE_CPU");
    int sum = pipe_rank(ctx) + 1;
    if (pipe_allreduce(ctx, &sum, 1, PIPE_I32, PIPE_SUM) != 0)
        return pipe_fail(ctx, "allreduce: %s", pipe_last_error(ctx));
    pipe_log(ctx, "rank %d sees CUDA_VISIBLE_DEVICES=\"%s\"", pipe_rank(ctx), cvd ? cvd : "(unset)");
    FILE *out = pipe_output_open(ctx, "out");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    fprintf(out, "world=%d sum=%d CUDA_VISIBLE_DEVICES=\"%s\" ACCELERATE_USE_CPU=%s\n", pipe_world_size(ctx), sum,
            cvd ? cvd : "(unset)", use_cpu ? use_cpu : "(unset)");
    return 0;
}
