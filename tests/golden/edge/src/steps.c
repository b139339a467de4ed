#include "edge.h"

int produce(pipe_ctx *ctx, const edge_produce_args *args)
{
    FILE *out = pipe_output_open(ctx, "out");
    if (!out)
        return 1;
    fprintf(out, "%lld %d %s\n", (long long)args->int_, args->if_, args->new_);
    return 0;
}

int transform_blob(pipe_ctx *ctx, const edge_transform_args *args)
{
    FILE *out = pipe_output_open(ctx, "out");
    if (!out)
        return 1;
    fprintf(out, "%s %g\n", args->data, args->scale);
    return 0;
}

int consume(pipe_ctx *ctx, const edge_consume_args *args)
{
    pipe_log(ctx, "%s: %s", args->data, args->note);
    return 0;
}
