/* A rank's collectives (collectives.h): the argument checks, then the
   backend, whichever it is: coll_select.c chooses it. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "coll_watch.h"
#include "collectives.h"

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

/* The byte size of count elements of dtype; 0 and coll's error when the
   arguments are bad. */
static int check_buffer(pipe_coll *coll, const char *fn, const char *what, const void *buf, size_t count,
                        pipe_dtype dtype, size_t *bytes)
{
    size_t size = pipe_dtype_size(dtype);
    if (size == 0)
        return pipe_coll_error(coll, PIPE_EINVAL, "%s: unknown dtype %d", fn, (int)dtype);
    if (count > SIZE_MAX / size)
        return pipe_coll_error(coll, PIPE_EINVAL, "%s: %zu elements of %zu bytes overflow", fn, count, size);
    if (!buf && count > 0)
        return pipe_coll_error(coll, PIPE_EINVAL, "%s: %s is NULL but count is %zu", fn, what, count);
    *bytes = count * size;
    return 0;
}

int pipe_coll_allreduce(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, pipe_op op)
{
    size_t bytes = 0;
    int rc;
    if ((rc = check_buffer(coll, "pipe_allreduce", "buf", buf, count, dtype, &bytes)) != 0)
        return rc;
    if (!valid_op(op))
        return pipe_coll_error(coll, PIPE_EINVAL, "pipe_allreduce: unknown op %d", (int)op);
    pipe_coll_watch_enter(coll->watch, PIPE_COLL_ALLREDUCE);
    rc = coll->backend->allreduce(coll, buf, count, dtype, op);
    pipe_coll_watch_leave(coll->watch);
    return rc;
}

int pipe_coll_broadcast(pipe_coll *coll, void *buf, size_t count, pipe_dtype dtype, int root)
{
    size_t bytes = 0;
    int rc;
    if ((rc = check_buffer(coll, "pipe_broadcast", "buf", buf, count, dtype, &bytes)) != 0)
        return rc;
    if (root < 0 || root >= coll->world_size)
        return pipe_coll_error(coll, PIPE_EINVAL, "pipe_broadcast: root %d is not a rank (world size %d)", root,
                               coll->world_size);
    pipe_coll_watch_enter(coll->watch, PIPE_COLL_BROADCAST);
    rc = coll->backend->broadcast(coll, buf, count, dtype, root);
    pipe_coll_watch_leave(coll->watch);
    return rc;
}

int pipe_coll_allgather(pipe_coll *coll, const void *send, void *recv, size_t count, pipe_dtype dtype)
{
    size_t bytes = 0;
    int rc;
    if ((rc = check_buffer(coll, "pipe_allgather", "send", send, count, dtype, &bytes)) != 0 ||
        (rc = check_buffer(coll, "pipe_allgather", "recv", recv, count, dtype, &bytes)) != 0)
        return rc;
    if (bytes > SIZE_MAX / (size_t)coll->world_size)
        return pipe_coll_error(coll, PIPE_EINVAL, "pipe_allgather: %zu bytes times %d ranks overflow", bytes,
                               coll->world_size);
    pipe_coll_watch_enter(coll->watch, PIPE_COLL_ALLGATHER);
    rc = coll->backend->allgather(coll, send, recv, count, dtype);
    pipe_coll_watch_leave(coll->watch);
    return rc;
}

int pipe_coll_barrier(pipe_coll *coll)
{
    pipe_coll_watch_enter(coll->watch, PIPE_COLL_BARRIER);
    int rc = coll->backend->barrier(coll);
    pipe_coll_watch_leave(coll->watch);
    return rc;
}

int pipe_coll_error(pipe_coll *coll, int code, const char *fmt, ...)
{
    if (!coll->error || coll->errsize == 0)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(coll->error, coll->errsize, fmt, ap);
    va_end(ap);
    return code;
}
