/* The wide pipeline (../reliability.pipe): 32 invocations of one small step,
   all ready at once. */
#include <time.h>

#include "wide.h"

int leaf(pipe_ctx *ctx, const wide_leaf_args *a)
{
    struct timespec ts = {(time_t)(a->sleep_ms / 1000), (long)(a->sleep_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    pipe_metric(ctx, "leaf", (double)a->i);
    return 0;
}
