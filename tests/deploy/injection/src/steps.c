#include "injection.h"

int first(pipe_ctx *ctx, const injection_first_args *args)
{
    FILE *out = pipe_output_open(ctx, "out");
    if (!out)
        return 1;
    fprintf(out, "%s %lld\n", args->text, (long long)args->n);
    return 0;
}

int second(pipe_ctx *ctx, const injection_second_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int third(pipe_ctx *ctx, const injection_third_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}

int fourth(pipe_ctx *ctx, const injection_fourth_args *args)
{
    pipe_log(ctx, "%s %s", args->data, args->note);
    return 0;
}

int fifth(pipe_ctx *ctx, const injection_fifth_args *args)
{
    pipe_log(ctx, "%s", args->data);
    return 0;
}
