/* pipe_allreduce & co.: argument checks, then the context's backend
   (collectives.h), whichever it is: coll_select.c chooses it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll_watch.h"
#include "collectives.h"
#include "api/ctx.h"
#include "api/ctx_error.h"

size_t pipe_dtype_size(pipe_dtype dtype)
{
    switch (dtype) {
    case PIPE_F32: return 4;
    case PIPE_F64: return 8;
    case PIPE_I32: return 4;
    case PIPE_I64: return 8;
    case PIPE_U8: return 1;
    case PIPE_F16: return 2;
    case PIPE_BF16: return 2;
    }
    return 0;
}

static bool valid_op(pipe_op op)
{
    return op == PIPE_SUM || op == PIPE_PROD || op == PIPE_MAX || op == PIPE_MIN || op == PIPE_AVG;
}

/* The byte size of count elements of dtype; 0 and ctx's error when the
   arguments are bad. */
static int check_buffer(pipe_ctx *ctx, const char *fn, const char *what, const void *buf, size_t count,
                        pipe_dtype dtype, size_t *bytes)
{
    size_t size = pipe_dtype_size(dtype);
    if (size == 0)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "%s: unknown dtype %d", fn, (int)dtype);
    if (count > SIZE_MAX / size)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "%s: %zu elements of %zu bytes overflow", fn, count, size);
    if (!buf && count > 0)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "%s: %s is NULL but count is %zu", fn, what, count);
    *bytes = count * size;
    return 0;
}

int pipe_allreduce(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    size_t bytes = 0;
    int rc;
    if (!ctx)
        return PIPE_EINVAL;
    if ((rc = check_buffer(ctx, "pipe_allreduce", "buf", buf, count, dtype, &bytes)) != 0)
        return rc;
    if (!valid_op(op))
        return pipe_ctx_error(ctx, PIPE_EINVAL, "pipe_allreduce: unknown op %d", (int)op);
    pipe_coll_watch_enter(ctx->watch, PIPE_COLL_ALLREDUCE);
    rc = ctx->coll->allreduce(ctx, buf, count, dtype, op);
    pipe_coll_watch_leave(ctx->watch);
    return rc;
}

int pipe_broadcast(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, int root)
{
    size_t bytes = 0;
    int rc;
    if (!ctx)
        return PIPE_EINVAL;
    if ((rc = check_buffer(ctx, "pipe_broadcast", "buf", buf, count, dtype, &bytes)) != 0)
        return rc;
    if (root < 0 || root >= ctx->world_size)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "pipe_broadcast: root %d is not a rank (world size %d)", root,
                              ctx->world_size);
    pipe_coll_watch_enter(ctx->watch, PIPE_COLL_BROADCAST);
    rc = ctx->coll->broadcast(ctx, buf, count, dtype, root);
    pipe_coll_watch_leave(ctx->watch);
    return rc;
}

int pipe_allgather(pipe_ctx *ctx, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    size_t bytes = 0;
    int rc;
    if (!ctx)
        return PIPE_EINVAL;
    if ((rc = check_buffer(ctx, "pipe_allgather", "send", send, count, dtype, &bytes)) != 0 ||
        (rc = check_buffer(ctx, "pipe_allgather", "recv", recv, count, dtype, &bytes)) != 0)
        return rc;
    if (bytes > SIZE_MAX / (size_t)ctx->world_size)
        return pipe_ctx_error(ctx, PIPE_EINVAL, "pipe_allgather: %zu bytes times %d ranks overflow", bytes,
                              ctx->world_size);
    pipe_coll_watch_enter(ctx->watch, PIPE_COLL_ALLGATHER);
    rc = ctx->coll->allgather(ctx, send, recv, count, dtype);
    pipe_coll_watch_leave(ctx->watch);
    return rc;
}

int pipe_barrier(pipe_ctx *ctx)
{
    if (!ctx)
        return PIPE_EINVAL;
    pipe_coll_watch_enter(ctx->watch, PIPE_COLL_BARRIER);
    int rc = ctx->coll->barrier(ctx);
    pipe_coll_watch_leave(ctx->watch);
    return rc;
}

void pipe_coll_watch_attach(pipe_ctx *ctx)
{
    const char *v = getenv("PIPE_SHM_FD");
    if (ctx->world_size <= 1 || !v || !*v)
        return;
    char *end;
    errno = 0;
    long fd = strtol(v, &end, 10);
    size_t size = pipe_coll_watch_bytes(ctx->local_world_size);
    struct stat st;
    if (errno || *end || fd < 0 || fd > 1 << 20 || fstat((int)fd, &st) != 0 || (size_t)st.st_size < size)
        return; /* not the launcher's segment: no watch, nothing else changes */
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
    if (map == MAP_FAILED)
        return;
    ctx->watch_map = map;
    ctx->watch_size = size;
    ctx->watch = pipe_coll_watch_slots(map) + ctx->local_rank;
    atomic_store(&ctx->watch->pid, (int)getpid());
}

void pipe_coll_watch_detach(pipe_ctx *ctx)
{
    if (ctx->watch_map)
        munmap(ctx->watch_map, ctx->watch_size);
    ctx->watch_map = NULL;
    ctx->watch = NULL;
}
