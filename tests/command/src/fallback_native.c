/* A native multi-GPU step on a machine without a usable GPU: its ranks run
   on the CPU, see no GPU and all-reduce over the CPU collectives. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu_fallback.h"

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "(unset)";
}

int native_group(pipe_ctx *ctx, const gpu_fallback_native_group_args *args)
{
    (void)args;
    int sum = pipe_rank(ctx) + 1;
    if (pipe_allreduce(ctx, &sum, 1, PIPE_I32, PIPE_SUM) != 0)
        return pipe_fail(ctx, "allreduce: %s", pipe_last_error(ctx));
    FILE *out = pipe_output_open(ctx, "out");
    if (!out)
        return pipe_fail(ctx, "%s", pipe_last_error(ctx));
    fprintf(out, "world=%d sum=%d CUDA_VISIBLE_DEVICES=\"%s\" ACCELERATE_USE_CPU=%s PIPE_COLL_BACKEND=%s\n",
            pipe_world_size(ctx), sum, env("CUDA_VISIBLE_DEVICES"), env("ACCELERATE_USE_CPU"),
            env("PIPE_COLL_BACKEND"));
    return 0;
}
