#include "images.h"

int prep(pipe_ctx *ctx, const images_prep_args *args)
{
    FILE *out = pipe_output_open(ctx, "data");
    if (!out)
        return 1;
    fprintf(out, "%lld\n", (long long)args->n);
    return 0;
}
