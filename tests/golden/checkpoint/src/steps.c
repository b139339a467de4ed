#include "resumable.h"

int prepare(pipe_ctx *ctx, const resumable_prepare_args *args)
{
    FILE *out = pipe_output_open(ctx, "data");
    if (!out)
        return 1;
    fprintf(out, "%lld rows\n", (long long)args->rows);
    return 0;
}

int train(pipe_ctx *ctx, const resumable_train_args *args)
{
    FILE *out = pipe_output_open(ctx, "model");
    if (!out)
        return 1;
    fprintf(out, "%s %lld epochs\n", args->data, (long long)args->epochs);
    return 0;
}
