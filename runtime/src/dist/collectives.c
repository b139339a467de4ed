/* pipe_allreduce & co.: argument checks, then the context's backend
   (collectives.h). Backends: `single` for a world of one rank, `cpu`
   (coll_cpu.c) and `nccl` (coll_nccl.c) for more, and `none` when a GPU
   step wants NCCL that the build does not have. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll_cpu.h"
#include "coll_nccl.h"
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

/* single: one rank, every collective is the identity. */

static int single_allreduce(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    (void)ctx, (void)buf, (void)count, (void)dtype, (void)op;
    return 0;
}

static int single_broadcast(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, int root)
{
    (void)ctx, (void)buf, (void)count, (void)dtype, (void)root;
    return 0;
}

static int single_allgather(pipe_ctx *ctx, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    (void)ctx;
    if (count > 0 && send != recv)
        memmove(recv, send, count * pipe_dtype_size(dtype));
    return 0;
}

static int single_barrier(pipe_ctx *ctx)
{
    (void)ctx;
    return 0;
}

static const pipe_coll_backend single_backend = {
    .name = "single",
    .allreduce = single_allreduce,
    .broadcast = single_broadcast,
    .allgather = single_allgather,
    .barrier = single_barrier,
};

/* none: NCCL wanted, not built in. */

static int unsupported(pipe_ctx *ctx, const char *fn)
{
    return pipe_ctx_error(ctx, PIPE_ENOTSUP,
                          "%s: this multi-GPU step needs NCCL across its %d ranks, and the bundle was built without "
                          "NCCL (install NCCL where the bundle is built, or run the step with `cpu = true`)",
                          fn, ctx->world_size);
}

static int none_allreduce(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    (void)buf, (void)count, (void)dtype, (void)op;
    return unsupported(ctx, "pipe_allreduce");
}

static int none_broadcast(pipe_ctx *ctx, void *buf, size_t count, pipe_dtype dtype, int root)
{
    (void)buf, (void)count, (void)dtype, (void)root;
    return unsupported(ctx, "pipe_broadcast");
}

static int none_allgather(pipe_ctx *ctx, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    (void)send, (void)recv, (void)count, (void)dtype;
    return unsupported(ctx, "pipe_allgather");
}

static int none_barrier(pipe_ctx *ctx) { return unsupported(ctx, "pipe_barrier"); }

static const pipe_coll_backend none_backend = {
    .name = "none",
    .allreduce = none_allreduce,
    .broadcast = none_broadcast,
    .allgather = none_allgather,
    .barrier = none_barrier,
};

/* The launcher says which transport the ranks share (PIPE_COLL_BACKEND):
   NCCL for multi-GPU steps when the runtime has it, else the CPU backend. */
const pipe_coll_backend *pipe_coll_select(const pipe_ctx *ctx)
{
    if (ctx->world_size <= 1)
        return &single_backend;
    const char *want = getenv("PIPE_COLL_BACKEND");
    if (want && strcmp(want, "nccl") == 0) {
#if defined(PIPE_HAVE_NCCL) && PIPE_HAVE_NCCL
        (void)&none_backend;
        return &pipe_coll_nccl_backend;
#else
        return &none_backend;
#endif
    }
    return &pipe_coll_cpu_backend;
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
