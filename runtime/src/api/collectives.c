/* The collectives of the step API (pipe/pipe.h): the context's own
   (dist/collectives.h), whose errors land in pipe_last_error. */
#include "ctx.h"
#include "dist/collectives.h"
#include "pipe/error.h"
#include "pipe/pipe.h"

int pipe_allreduce(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    return ctx ? pipe_coll_allreduce(&ctx->coll, buf, count, dtype, op) : PIPE_EINVAL;
}

int pipe_broadcast(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, int root)
{
    return ctx ? pipe_coll_broadcast(&ctx->coll, buf, count, dtype, root) : PIPE_EINVAL;
}

int pipe_allgather(pipe_ctx *ctx, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    return ctx ? pipe_coll_allgather(&ctx->coll, send, recv, count, dtype) : PIPE_EINVAL;
}

int pipe_barrier(pipe_ctx *ctx) { return ctx ? pipe_coll_barrier(&ctx->coll) : PIPE_EINVAL; }

void *pipe_nccl_comm(pipe_ctx *ctx) { return ctx ? pipe_coll_nccl_comm(&ctx->coll) : NULL; }
