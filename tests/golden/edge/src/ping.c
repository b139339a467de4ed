#include "edge.h"

int ping(pipe_ctx *ctx, const edge_ping_args *args)
{
    (void)args;
    pipe_log(ctx, "ping");
    return 0;
}
